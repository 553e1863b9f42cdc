package probe_test

import (
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestProbeVia: a card declaring public addresses the prober cannot reach
// (agent.invalid) is probed at the local ones WithProbeVia names; each result names the
// interface as declared and says where it was probed. An interface the mapping leaves
// alone is probed where declared.
func TestProbeVia(t *testing.T) {
	t.Parallel()
	const public = "http://agent.invalid"
	a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST))
	c := &card.Card{Interfaces: []card.Interface{
		{URL: public + lab.PathJSONRPC, Binding: lab.JSONRPC, ProtocolVersion: card.V1},
		{URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, ProtocolVersion: card.V1},
	}}
	via := func(i card.Interface) (string, bool) {
		if rest, ok := strings.CutPrefix(i.URL, public); ok {
			return a.BaseURL + rest, true
		}
		return "", false
	}
	results := probe.Card(t.Context(), c, probe.WithProbeVia(via))
	for n, r := range results {
		if r.Outcome != wire.Served || r.Interface != c.Interfaces[n] {
			t.Errorf("result %d = %s for %s, want served, named as declared (%s): %s", n, r.Outcome, r.Interface, c.Interfaces[n], r.Detail)
		}
	}
	if d := results[0].Detail; !strings.HasPrefix(d, "probed via "+a.BaseURL+lab.PathJSONRPC) {
		t.Errorf("mapped detail = %q, want it to say where it was probed", d)
	}
	if d := results[1].Detail; strings.Contains(d, "probed via") {
		t.Errorf("unmapped detail = %q, says it was probed elsewhere", d)
	}
	if r := probe.Card(t.Context(), c)[0]; r.Outcome == wire.Served {
		t.Errorf("without the mapping the public address was served: %s", r.Detail)
	}
}
