package interop

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// modeLegacyCompat is server.mjs's card mode with legacyCompat enabled on JSON-RPC and
// HTTP+JSON, each declared in protocol versions 1.0 and 0.3.
const modeLegacyCompat = "legacy-compat"

// TestProbeJSLegacyCompat reproduces the second half of issue 9's hole 3 against
// @a2a-js/sdk 1.3.0 with legacyCompat: it serves HTTP+JSON 0.3 under /a2a/rest/v1/...
// while /a2a/rest/tasks/{id} answers in 1.0 shape. Every declared interface, 0.3
// HTTP+JSON included, is served (it used to be version_mismatch).
func TestProbeJSLegacyCompat(t *testing.T) {
	t.Parallel()
	s := startJSServer(t, modeLegacyCompat)
	_, results := probeJS(t, s)
	type row struct {
		Binding a2a.TransportProtocol
		Version string
		Outcome wire.Outcome
		Actual  string
	}
	var got []row
	for _, r := range results {
		got = append(got, row{r.Interface.Binding, r.Interface.ProtocolVersion, r.Outcome, r.ActualVersion})
		t.Logf("%s: %s %s", r.Interface, r.Outcome, r.Detail)
	}
	want := []row{
		{a2a.TransportProtocolJSONRPC, card.V1, wire.Served, card.V1},
		{a2a.TransportProtocolHTTPJSON, card.V1, wire.Served, card.V1},
		{a2a.TransportProtocolJSONRPC, card.V03, wire.Served, card.V03},
		{a2a.TransportProtocolHTTPJSON, card.V03, wire.Served, card.V03},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("probe.Card outcomes (-want +got):\n%s", diff)
	}
}
