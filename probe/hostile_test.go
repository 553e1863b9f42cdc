package probe_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestHostilePeers: a peer that answers without end, trickles its headers or its body a
// byte at a time, or (gRPC) never answers, costs a probe the budget of WithTimeout and
// at most a 64 KiB body per request; the detail says which bound cut it.
func TestHostilePeers(t *testing.T) {
	const (
		budget = 300 * time.Millisecond
		margin = 3 * time.Second // scheduling on a loaded machine, never the peer's pace
	)
	peers := map[lab.Hostile]*lab.HostilePeer{}
	for _, k := range []lab.Hostile{lab.EndlessBody, lab.TrickleHeaders, lab.TrickleBody, lab.HangingGRPC} {
		p, err := lab.StartHostile(k)
		if err != nil {
			t.Fatalf("lab.StartHostile() error = %v", err)
		}
		t.Cleanup(func() { _ = p.Close() })
		peers[k] = p
	}
	tests := []struct {
		name     string
		kind     lab.Hostile
		binding  a2a.TransportProtocol
		want     wire.Outcome
		contains string
	}{
		{"endless JSON-RPC answer", lab.EndlessBody, jsonrpc, wire.Malformed, "body over the 65536-byte limit (read no further)"},
		{"endless HTTP+JSON answer", lab.EndlessBody, httpjson, wire.Malformed, "body over the 65536-byte limit (read no further)"},
		{"trickled headers", lab.TrickleHeaders, jsonrpc, wire.Timeout, "context deadline exceeded"},
		{"trickled JSON-RPC body", lab.TrickleBody, jsonrpc, wire.Timeout, "body cut: context deadline exceeded"},
		{"trickled HTTP+JSON body", lab.TrickleBody, httpjson, wire.Timeout, "body cut: context deadline exceeded"},
		{"gRPC server that never answers", lab.HangingGRPC, grpc, wire.Timeout, "DeadlineExceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The time-bound cases run in parallel; those measuring memory run alone.
			measure := tc.kind == lab.EndlessBody || tc.kind == lab.GiantEvent
			if !measure {
				t.Parallel()
			}
			p := peers[tc.kind]
			url := p.URL + "/a2a"
			if tc.binding == grpc {
				url = p.Addr
			}
			var r probe.Result
			start := time.Now()
			alloc := allocated(func() {
				r = probe.Interface(t.Context(), iface(url, tc.binding, card.V1), probe.WithTimeout(budget))
			})
			elapsed := time.Since(start)
			if r.Outcome != tc.want || !strings.Contains(r.Detail, tc.contains) {
				t.Errorf("Interface() = %s (%s), want %s with a detail containing %q", r.Outcome, r.Detail, tc.want, tc.contains)
			}
			if elapsed > budget+margin {
				t.Errorf("Interface() returned after %s, want at most %s", elapsed, budget+margin)
			}
			if measure {
				t.Logf("allocated %d MiB in %s", alloc>>20, elapsed)
			}
			// An unbounded reader would take the peer's HostileMaxBytes (256 MiB) per request.
			if measure && alloc > 32<<20 {
				t.Errorf("Interface() allocated %d MiB, want under 32 MiB", alloc>>20)
			}
		})
	}

	// A whole card of hostile interfaces is bounded by the context, in parallel.
	c := &card.Card{}
	for _, tc := range tests {
		url := peers[tc.kind].URL + "/a2a"
		if tc.binding == grpc {
			url = peers[tc.kind].Addr
		}
		c.Interfaces = append(c.Interfaces, iface(url, tc.binding, card.V1))
	}
	start := time.Now()
	results := probe.Card(t.Context(), c, probe.WithTimeout(budget))
	if elapsed := time.Since(start); elapsed > budget+margin {
		t.Errorf("Card() returned after %s, want at most %s", elapsed, budget+margin)
	}
	if len(results) != len(tests) {
		t.Fatalf("Card() = %d results, want %d", len(results), len(tests))
	}
	for i, r := range results {
		if r.Outcome != tests[i].want {
			t.Errorf("Card() %s: %s (%s), want %s", tests[i].name, r.Outcome, r.Detail, tests[i].want)
		}
	}
}

// allocated returns how many bytes the heap allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
