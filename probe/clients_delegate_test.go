package probe_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestDelegatePredictionReadsDialects: the a2abind-delegate prediction for a served
// v0.3 HTTP+JSON interface follows the dialects the delegate speaks (restv03.DialectAt):
// routes at {url} (a2a-go v2.3.1) and under {url}/v1 succeed; routes the delegate has no
// dialect for get not_found.
func TestDelegatePredictionReadsDialects(t *testing.T) {
	iface := card.Interface{URL: "http://127.0.0.1:9/a2a", Binding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: card.V03}
	c := &card.Card{Name: "x", Interfaces: []card.Interface{iface}}
	for _, tc := range []struct {
		prefix  string
		outcome wire.Outcome
	}{{"", wire.Served}, {"/v1", wire.Served}, {"/v2", wire.NotFound}} {
		r := probe.Result{Interface: iface, Outcome: wire.Served, Lookup: wire.Served, Way: probe.Way{Prefix: tc.prefix}}
		found := false
		for _, ci := range probe.Diagnose(c, []probe.Result{r}).Clients {
			if ci.Profile != "a2abind-delegate" {
				continue
			}
			found = true
			if ci.Outcome != tc.outcome || ci.OK != (tc.outcome == wire.Served) {
				t.Errorf("routes under %q: a2abind-delegate = %s ok=%v (%s), want %s", tc.prefix, ci.Outcome, ci.OK, ci.Note, tc.outcome)
			}
		}
		if !found {
			t.Fatal("no a2abind-delegate profile")
		}
	}
}
