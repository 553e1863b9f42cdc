package delegate

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// zoo is an agent whose card declares, in order, one interface per outcome a call can
// fall back from, and last the one that works: version mismatches on each binding,
// wrong bindings on each binding, a gRPC server with no A2A service, a path with
// nothing mounted, a closed port.
func zoo(t *testing.T) []lab.Option {
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	noService := labtest.Start(t, lab.WithGRPC(lab.GRPCNoService), lab.WithCard(func(*lab.Agent) any { return []byte("{}") }))
	return []lab.Option{
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
				lab.Decl{URL: noService.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
				lab.Decl{URL: a.URL("/nothing"), Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: "http://" + closed + "/", Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, Version: card.V1},
			)
		}),
	}
}

// TestProbeAndSendAgree runs delegate.Client against lab agents and checks that every
// attempt's outcome is the probe's outcome for that interface, and that probe's
// a2abind-delegate prediction is what the client did: the interface it ended on and the
// outcome it got there.
func TestProbeAndSendAgree(t *testing.T) {
	tests := []struct {
		name  string
		agent func(t *testing.T) []lab.Option
		want  []wire.Outcome // the client's attempts, in order
	}{
		{"seed v0.3", func(*testing.T) []lab.Option { return lab.Seed() }, []wire.Outcome{wire.HandlerMissing, wire.Served}},
		{"seed v1.0", func(*testing.T) []lab.Option { return lab.SeedV1() }, []wire.Outcome{wire.WrongBinding, wire.Served}},
		{"every fallback", zoo, []wire.Outcome{
			wire.VersionMismatch, wire.VersionMismatch, wire.VersionMismatch,
			wire.WrongBinding, wire.WrongBinding, wire.WrongBinding,
			wire.HandlerMissing, wire.NotFound, wire.Refused, wire.Served,
		}},
		{"credentials refused", func(t *testing.T) []lab.Option {
			return append(lab.Healthy(), lab.WithAuth("s3cret"))
		}, []wire.Outcome{wire.AuthRequired}},
		{"5xx after the request was written", func(t *testing.T) []lab.Option {
			return append(lab.Healthy(), lab.WithHTTPMiddleware(func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == card.WellKnownPath {
						next.ServeHTTP(w, r)
						return
					}
					http.Error(w, "upstream busy", http.StatusServiceUnavailable)
				})
			}))
		}, []wire.Outcome{wire.Ambiguous}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			a := labtest.Start(t, tt.agent(t)...)
			c := newTestClient(t, ctx, a.BaseURL)
			results := probe.Card(ctx, c.Card())
			byKey := map[string]probe.Result{}
			for _, r := range results {
				byKey[r.Interface.Key()] = r
			}
			var tr Trace
			_, err := c.SendMessage(WithTrace(ctx, &tr), userMessage("agree"))
			attempts := tr.Attempts()
			if got := outcomes(attempts); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("attempt outcomes = %v, want %v (error %v)", got, tt.want, err)
			}
			for _, at := range attempts {
				r, ok := byKey[at.Interface.Key()]
				if !ok {
					t.Errorf("attempt on %s: the probe has no result for it", at.Interface)
					continue
				}
				if at.Outcome == wire.Ambiguous && (r.Outcome == wire.Malformed || r.Outcome == wire.Timeout) {
					continue // a probe reads an ambiguous lookup as an answer that fits no binding
				}
				if at.Outcome != r.Outcome {
					t.Errorf("%s: send says %s (%s), probe says %s (%s)", at.Interface, at.Outcome, at.Detail, r.Outcome, r.Detail)
				}
			}
			var predicted probe.ClientImpact
			for _, ci := range probe.Diagnose(c.Card(), results).Clients {
				if ci.Profile == "a2abind-delegate" {
					predicted = ci
				}
			}
			last := attempts[len(attempts)-1]
			if predicted.Interface == nil || predicted.Interface.Key() != last.Interface.Key() ||
				predicted.Outcome != last.Outcome || predicted.OK != (err == nil) {
				t.Errorf("a2abind-delegate prediction = %+v (%v), the client ended on %s with %s (error %v)",
					predicted, predicted.Interface, last.Interface, last.Outcome, err)
			}
		})
	}
}

// TestSharpens: the probe only sharpens the name of a never-reached failure; it never
// turns it into something the call's own evidence contradicts.
func TestSharpens(t *testing.T) {
	tests := []struct {
		call, probed wire.Outcome
		want         bool
	}{
		{wire.HandlerMissing, wire.VersionMismatch, true},
		{wire.NotFound, wire.WrongBinding, true},
		{wire.Malformed, wire.TLSMismatch, true},
		{wire.Malformed, wire.WrongBinding, true},
		{wire.NotFound, wire.TLSMismatch, false},
		{wire.HandlerMissing, wire.HandlerMissing, false},
		{wire.NotFound, wire.Served, false},
		{wire.NotFound, wire.AuthRequired, false},
		{wire.HandlerMissing, wire.Timeout, false},
		{wire.NotFound, wire.Refused, false},
	}
	for _, tt := range tests {
		if got := sharpens(tt.call, tt.probed); got != tt.want {
			t.Errorf("sharpens(%s, %s) = %v, want %v", tt.call, tt.probed, got, tt.want)
		}
	}
}
