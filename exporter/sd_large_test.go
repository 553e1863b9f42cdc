package exporter_test

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
)

// TestSD_CatalogBoundFollowsMaxTargets: a catalog document over discovery's default 4
// MiB is listed whole when max_targets allows its entries (a fleet of 100,000 agents
// has a 15 MiB catalog), and refused whole when max_targets is below its entries:
// the document bound grows with max_targets (256 bytes each), not without it.
func TestSD_CatalogBoundFollowsMaxTargets(t *testing.T) {
	t.Parallel()
	const n = 30_000 // about 4.6 MiB of entries
	entries := make([]string, n)
	for i := range entries {
		entries[i] = agentEntry("urn:agent:fleet:"+strconv.Itoa(i), "Fleet agent "+strconv.Itoa(i), fmt.Sprintf("http://127.0.0.1:9/agents/%06d", i))
	}
	var body atomic.Value
	body.Store(catalogDoc(entries...))
	if size := len(body.Load().(string)); size <= 4<<20 {
		t.Fatalf("the catalog is %d bytes; the test needs one over 4 MiB", size)
	}
	cat, _ := catalogServer(t, &body)
	for _, tc := range []struct {
		maxTargets string
		want       int
	}{{"max_targets: 30000", n}, {"max_targets: 12000", 0}} {
		base := start(t, mustConfig(t, fmt.Sprintf("discovery: {catalogs: [%q], %s}", cat.URL+"/catalog", tc.maxTargets)))
		if got := getSD(t, base); len(got) != tc.want {
			t.Errorf("%s: /sd lists %d targets of the %d-entry catalog, want %d", tc.maxTargets, len(got), n, tc.want)
		}
	}
}
