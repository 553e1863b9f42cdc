package delegate

import (
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

func TestExploreAgreement(t *testing.T) {
	ctx := testContext(t)
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	noSvc := labtest.Start(t, lab.WithGRPC(lab.GRPCNoService), lab.WithCard(func(*lab.Agent) any { return []byte("{}") }))
	a := labtest.Start(t,
		lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
		lab.WithJSONRPC(card.V03, lab.PathJSONRPCV03), lab.WithREST(card.V03, lab.PathRESTV03),
		lab.WithGRPC(lab.GRPCV03),
		lab.WithCard(func(a *lab.Agent) any {
			return lab.V1Card("zoo",
				lab.Decl{URL: a.URL(lab.PathJSONRPCV03), Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: a.URL(lab.PathRESTV03), Binding: lab.HTTPJSON, Version: card.V1},
				lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
				lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.HTTPJSON, Version: card.V1},
				lab.Decl{URL: a.HTTPAddr, Binding: lab.GRPC, Version: card.V1},
				lab.Decl{URL: noSvc.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
				lab.Decl{URL: a.URL("/nothing"), Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: "http://" + closed + "/", Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, Version: card.V1},
			)
		}))
	c := newTestClient(t, ctx, a.BaseURL, WithPlaintextGRPC())
	results := probe.Card(ctx, c.Card())
	var tr Trace
	_, err = c.SendMessage(WithTrace(ctx, &tr), userMessage("x"))
	t.Logf("send err %v", err)
	for i, r := range results {
		t.Logf("probe %d %s: %s | %s", i, r.Interface, r.Outcome, r.Detail)
	}
	for i, at := range tr.Attempts() {
		t.Logf("send %d %s: %s | %s", i, at.Interface, at.Outcome, at.Detail)
	}
	t.Log(probe.Diagnose(c.Card(), results).Clients[len(probe.Profiles())-1])
}
