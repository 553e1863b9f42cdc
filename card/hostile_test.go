package card_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
)

// TestFetchHostilePeers: a peer answering a card without end is cut at DefaultMaxBytes
// with bounded memory; one trickling its headers or its body a byte at a time is cut
// by the fetch timeout. Each error says which bound cut it.
func TestFetchHostilePeers(t *testing.T) {
	const (
		budget = 300 * time.Millisecond
		margin = 3 * time.Second // scheduling on a loaded machine, never the peer's pace
	)
	tests := []struct {
		name     string
		kind     lab.Hostile
		is       error
		contains string
		budget   time.Duration
	}{
		// The endless card is cut by its size bound, not by time: a long budget keeps a
		// loaded machine (the race detector) from timing out before 1 MiB arrives.
		{"endless card", lab.EndlessBody, card.ErrMalformed, "document is over the 1048576-byte limit", 20 * time.Second},
		{"trickled headers", lab.TrickleHeaders, context.DeadlineExceeded, "no complete answer within 300ms", budget},
		{"trickled card", lab.TrickleBody, context.DeadlineExceeded, "no complete answer within 300ms", budget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := lab.StartHostile(tc.kind)
			if err != nil {
				t.Fatalf("lab.StartHostile() error = %v", err)
			}
			t.Cleanup(func() { _ = p.Close() })
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			c, err := card.Load(t.Context(), p.URL, card.WithTimeout(tc.budget))
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if err == nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("Load() = %v, %v; want errors.Is %v containing %q", c, err, tc.is, tc.contains)
			}
			if elapsed > tc.budget+margin {
				t.Errorf("Load() returned after %s, want at most %s", elapsed, tc.budget+margin)
			}
			// An unbounded reader would take the peer's HostileMaxBytes (256 MiB).
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("Load() allocated %d MiB, want under 32 MiB", alloc>>20)
			}
		})
	}
}
