package guard_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// waitPublished waits (bounded) until the guard's card is published, or withheld when
// want is false, and returns that state.
func waitPublished(t *testing.T, g *guard.Guard, want bool) guard.State {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := g.State()
		if s.Published == want {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("published never became %v within 60s (round %d: %s)", want, s.Round, s.Reason)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLateGRPCRegistrationFlipsStrictWithinOneInterval: the agent's gRPC service
// registers after the guard started, then goes away. Strict mode withholds the card
// (503), publishes it once the service answers, and withholds it again when the service
// is removed, each time at the first round that starts after the change (the round
// running at the change may have probed before it): within one interval. Rounds are
// counted, not clocks.
func TestLateGRPCRegistrationFlipsStrictWithinOneInterval(t *testing.T) {
	t.Parallel()
	late, err := lab.StartLateGRPC()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = late.Close() })
	a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithCard(func(a *lab.Agent) any {
		return lab.V1Card("late-grpc", lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: late.Addr, Binding: lab.GRPC, Version: card.V1})
	}))
	g := startGuard(t, a.BaseURL, guard.WithInterval(time.Second), guard.WithProbeTimeout(5*time.Second))
	if got := get(t, cardOf(g)); got.status != http.StatusServiceUnavailable {
		t.Fatalf("card before the gRPC service registered = %d, want 503", got.status)
	}

	before := g.State().Round
	late.Register()
	s := waitPublished(t, g, true)
	if s.Since > before+2 {
		t.Errorf("published from round %d; the service registered during round %d, so round %d at the latest", s.Since, before+1, before+2)
	}
	if got := get(t, cardOf(g)); got.status != http.StatusOK || got.body != string(a.CardJSON) {
		t.Errorf("card after registration = %d, want 200 with the upstream card", got.status)
	}

	before = g.State().Round
	late.Unregister()
	s = waitPublished(t, g, false)
	if s.Since > before+2 {
		t.Errorf("withheld from round %d; the service went away during round %d, so round %d at the latest", s.Since, before+1, before+2)
	}
	if got := get(t, cardOf(g)); got.status != http.StatusServiceUnavailable {
		t.Errorf("card after the service went away = %d, want 503", got.status)
	}
}
