package guard_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestSteadyRoundsAskOnce: the guard's rounds reuse their capability verdicts while the
// card's claims stay the same, as the exporter's scrapes do. Counted at the agent's HTTP
// listener (the card, JSON-RPC and HTTP+JSON), a steady round costs the card fetch and
// one lookup per HTTP interface: 3 requests, not the first round's 3 plus a capability
// call per claimed capability and binding.
func TestSteadyRoundsAskOnce(t *testing.T) {
	var requests atomic.Int64
	a := labtest.Start(t, append(lab.Capable(), lab.WithHTTPMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			h.ServeHTTP(w, r)
		})
	}))...)
	g := startGuard(t, a.BaseURL, guard.WithInterval(150*time.Millisecond), guard.WithProbeTimeout(5*time.Second))
	first := requests.Load() // Start ran the first round
	waitRound := func(n int) int64 {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for g.State().Round < n {
			if time.Now().After(deadline) {
				t.Fatalf("round %d did not end in time", n)
			}
			time.Sleep(time.Millisecond)
		}
		return requests.Load()
	}
	r := g.State().Round
	start := waitRound(r + 1)
	const rounds = 3
	end := waitRound(r + 1 + rounds)
	if per := float64(end-start) / rounds; per != 3 {
		t.Errorf("a steady round cost the agent %.2f HTTP requests, want 3 (the card, one lookup per HTTP interface); the first cost %d", per, first)
	}
	if first <= 3 {
		t.Errorf("the first round cost %d requests: it made no capability call", first)
	}
}
