package interop

import (
	"context"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// TestGRPCTargetPredictionMatchesA2AGo: a card declares one GRPC interface at a lab
// agent's gRPC socket, spelled in each target form (scheme case included). probe's
// a2a-go-grpc prediction (addr.GoGRPCTarget, the one scheme rule) must agree with the
// real a2a-go client (a2agoclient, the module's release) built from that card: a message reaches the
// handler (DNS:///, passthrough:///, bare host:port) or it fails before any call
// (grpc://, http://, https://). Issue 18 item 4: "DNS:///host:443" is accepted by
// grpc-go, and the prediction says so.
func TestGRPCTargetPredictionMatchesA2AGo(t *testing.T) {
	t.Parallel()
	forms := []struct {
		prefix string
		ok     bool
		suffix string
	}{
		{"", true, ""},
		{"dns:///", true, ""},
		{"DNS:///", true, ""},
		{"Passthrough:///", true, ""},
		{"grpc://", false, ""},
		{"GRPC://", false, ""},
		{"http://", false, ""},
		{"", false, " "}, // "host:port ": the port grpc-go reads has a space
	}
	for _, f := range forms {
		t.Run(f.prefix+"host:port"+f.suffix, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, lab.WithGRPC(lab.GRPCV1), lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("target-"+f.prefix, lab.Decl{URL: f.prefix + a.GRPCAddr + f.suffix, Binding: lab.GRPC, Version: card.V1})
			}))
			c, err := card.Parse(a.CardJSON)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), probeBudget)
			defer cancel()
			report := probe.Diagnose(c, probe.Card(ctx, c, probe.WithTimeout(5*time.Second)))
			pred, ok := impactFor(report, "a2a-go-grpc")
			if !ok {
				t.Fatalf("Diagnose has no a2a-go-grpc profile (profiles: %v)", profileNames(report))
			}
			releases := a2aGoReleases(t)
			real := runA2AGoClient(t, releases[len(releases)-1], "grpc="+a.BaseURL)[0] // a2a-go-grpc
			if pred.OK != f.ok || real.ok != f.ok {
				t.Errorf("GRPC at %q: predicted ok = %v (%s: %s), real a2a-go client ok = %v (%s); want %v",
					f.prefix+"host:port"+f.suffix, pred.OK, pred.Outcome, pred.Note, real.ok, real.raw, f.ok)
			}
		})
	}
}
