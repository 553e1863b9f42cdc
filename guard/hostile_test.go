package guard_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
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

// TestGuardSurvivesUpstreamCuts: upstreams that reset the connection before reading all
// of a request (300 KB or 1 MB), or cut their own answer (Content-Length not reached,
// or a chunked answer aborted). The client sees the guard's 502, or the answer cut as
// the upstream cut it, and its next request on the same connection passes whole: the
// guard neither dies nor cuts what follows.
func TestGuardSurvivesUpstreamCuts(t *testing.T) {
	t.Parallel()
	const part, ok = "a2abind test: half an answer\n", "a2abind test: ok\n"
	var log logBuffer
	g := guardOver(t, "/cut", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.RawQuery {
		case "ok":
			_, _ = io.Copy(io.Discard, r.Body)
			_, _ = io.WriteString(w, ok)
			return
		case "reset":
			// Not a byte read: the proxy's writes fill the connection's buffers and
			// stop, then fail with the reset; what is left of the client's body stays
			// unread at the guard.
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				time.Sleep(50 * time.Millisecond)
				_ = conn.Close()
			}
			return
		case "length":
			w.Header().Set("Content-Length", strconv.Itoa(2*len(part)))
			fallthrough
		default:
			_, _ = io.WriteString(w, part)
			_ = http.NewResponseController(w).Flush()
		}
		panic(http.ErrAbortHandler) // the connection closed, the answer (if any) cut
	}, log.option())
	call := func(c *http.Client, q string, size int) (int, string, error) {
		// Not a strings.Reader: the client cannot send the body again, so it does not
		// retry a request that met a connection the guard closed.
		req := newRequest(t, http.MethodPost, g.URL()+"/cut?"+q, io.MultiReader(strings.NewReader(strings.Repeat("x", size))))
		req.ContentLength = int64(size)
		resp, err := c.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	for _, tc := range []struct {
		q    string
		size int
	}{{"reset", 300 << 10}, {"reset", 1 << 20}, {"length", 100 << 10}, {"chunked", 100 << 10}} {
		c := &http.Client{Timeout: 10 * time.Second}
		for i := range 20 {
			status, body, err := call(c, tc.q, tc.size)
			switch {
			case tc.q == "reset" && (status != http.StatusBadGateway || err != nil):
				t.Fatalf("%s %d: answer %d %q, %v; want the guard's 502", tc.q, i, status, body, err)
			case tc.q != "reset" && (status != http.StatusOK || body != part || !errors.Is(err, io.ErrUnexpectedEOF)):
				t.Fatalf("%s %d: answer %d %q, %v; want %q cut as the upstream cut it", tc.q, i, status, body, err, part)
			}
			if status, body, err := call(c, "ok", tc.size); status != http.StatusOK || body != ok || err != nil {
				t.Fatalf("%s %d: the next call = %d %q, %v; want it whole", tc.q, i, status, body, err)
			}
		}
		c.CloseIdleConnections()
	}
	if strings.Contains(log.String(), "panic") {
		t.Errorf("the guard's server recovered from a panic:\n%s", log.String())
	}
}
