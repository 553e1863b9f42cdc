package guard_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestHugeCardRoundStaysBounded: a card declaring thousands of interfaces (here 1,000,
// all at one closed port) cannot stall the guard: the round ends within its budget
// (what is not probed by then counts as not served), strict withholds the card, and
// normalize publishes only the one interface that is served.
func TestHugeCardRoundStaysBounded(t *testing.T) {
	t.Parallel()
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithCard(func(a *lab.Agent) any {
		decls := []lab.Decl{{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1}}
		for i := range 1000 {
			decls = append(decls, lab.Decl{URL: "http://" + closed + "/" + strconv.Itoa(i), Binding: lab.JSONRPC, Version: card.V1})
		}
		return lab.V1Card("huge", decls...)
	}))
	for _, normalize := range []bool{false, true} {
		opts := []guard.Option{guard.WithInterval(2 * time.Second), guard.WithProbeTimeout(time.Second)}
		if normalize {
			opts = append(opts, guard.WithNormalize())
		}
		g := startGuard(t, a.BaseURL, opts...)
		s := g.State()
		got := get(t, cardOf(g))
		switch {
		case !normalize && (s.Published || got.status != http.StatusServiceUnavailable):
			t.Errorf("strict: published %v, card %d; want withheld", s.Published, got.status)
		case normalize && got.status != http.StatusOK:
			t.Errorf("normalize: card %d (%s), want 200", got.status, s.Reason)
		case normalize:
			c, err := card.Parse([]byte(got.body))
			if err != nil || len(c.Interfaces) != 1 || c.Interfaces[0].URL != a.URL(lab.PathJSONRPC) {
				t.Errorf("normalize: card = %v (%v), want only the served JSON-RPC interface", c, err)
			}
		}
	}
}

// TestStartAndShutdownOrder: Shutdown without Start releases the listener; the guard
// does not start after Shutdown, nor twice.
func TestStartAndShutdownOrder(t *testing.T) {
	t.Parallel()
	g, err := guard.New("http://127.0.0.1:1", guard.WithListener(listen(t)))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown before Start = %v", err)
	}
	if err := g.Start(context.Background()); !errors.Is(err, guard.ErrStarted) {
		t.Errorf("Start after Shutdown = %v, want ErrStarted", err)
	}
	a := labtest.Start(t, lab.Healthy()...)
	g2 := startGuard(t, a.BaseURL)
	if err := g2.Start(context.Background()); !errors.Is(err, guard.ErrStarted) {
		t.Errorf("second Start = %v, want ErrStarted", err)
	}
}
