package probe

import (
	"maps"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
)

// a2aTransports are the three transport protocols a2a-go defines.
var a2aTransports = []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC, a2a.TransportProtocolHTTPJSON}

// TestProbersCoverA2ATransports holds the prober table to a2a's transport protocols:
// every binding a card may declare (addr.CoreBindings) has a prober, and nothing else.
func TestProbersCoverA2ATransports(t *testing.T) {
	got := slices.Sorted(maps.Keys(probers))
	want := slices.Sorted(slices.Values(a2aTransports))
	if !slices.Equal(got, want) {
		t.Fatalf("probers registers %v, a2a defines %v", got, want)
	}
	if core := slices.Sorted(slices.Values(addr.CoreBindings)); !slices.Equal(core, want) {
		t.Fatalf("addr.CoreBindings is %v, a2a defines %v", core, want)
	}
	for b, p := range probers {
		if p == nil {
			t.Errorf("probers[%s] is nil", b)
		}
	}
}
