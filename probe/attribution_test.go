package probe_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestSwappedPaths reproduces hole 3: a card declares JSONRPC at /a2a/rest (which
// serves HTTP+JSON) and HTTP+JSON at /a2a/jsonrpc (which serves JSON-RPC). What is
// really at each URL, and the fix, come from that URL itself, never from the other.
func TestSwappedPaths(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	c := &card.Card{Interfaces: []card.Interface{
		iface(a.URL(lab.PathREST), jsonrpc, card.V1),
		iface(a.URL(lab.PathJSONRPC), httpjson, card.V1),
	}}
	c.Interfaces[1].Source = card.Supported(1)
	results := probe.Card(t.Context(), c, probe.WithTimeout(5*time.Second))
	got := []verdict{verdictOf(results[0]), verdictOf(results[1])}
	want := []verdict{
		{wire.WrongBinding, httpjson, card.V1},
		{wire.WrongBinding, jsonrpc, card.V1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Card() verdicts (-want +got):\n%s\n%s\n%s", diff, results[0].Detail, results[1].Detail)
	}
	for n, r := range results {
		if other := c.Interfaces[1-n].URL; strings.Contains(r.Detail, other+" ->") {
			t.Errorf("result %d's evidence comes from the other URL %s:\n%s", n, other, r.Detail)
		}
	}
	fixes := map[string]string{}
	for _, f := range probe.Diagnose(c, results).Findings {
		if f.Code == card.CodeInterfaceNotServed {
			fixes[f.Interface] = f.Fix
		}
	}
	for n, wantFix := range []string{"declare HTTP+JSON at this URL", "declare JSONRPC at this URL"} {
		if fix := fixes[c.Interfaces[n].Source.String()]; !strings.Contains(fix, wantFix) {
			t.Errorf("fix for %s = %q, want it to say %q", c.Interfaces[n], fix, wantFix)
		}
	}
}

// TestRESTv03UnderV1 reproduces the second half of hole 3 with a2a-go handlers laid out
// as @a2a-js/sdk 1.3.0 with legacyCompat lays them out: {url}/tasks/{id} answers in 1.0
// shape while v0.3 REST is served at {url}/v1/tasks/{id}. HTTP+JSON 0.3 declared at
// {url} is served, and 1.0 too.
func TestRESTv03UnderV1(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.WithREST(card.V1, lab.PathREST), lab.WithREST(card.V03, lab.PathREST),
		lab.WithCard(func(*lab.Agent) any { return []byte("{}") }))
	for _, version := range []string{card.V03, card.V1} {
		r := probe.Interface(t.Context(), iface(a.URL(lab.PathREST), httpjson, version), probe.WithTimeout(5*time.Second))
		if diff := cmp.Diff(verdict{wire.Served, httpjson, version}, verdictOf(r)); diff != "" {
			t.Errorf("HTTP+JSON %s verdict (-want +got):\n%s\n%s", version, diff, r.Detail)
		}
	}
}
