package probe_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	grpcgo "google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
)

// healthyCard starts the healthy three-interface lab agent (JSON-RPC, gRPC, HTTP+JSON,
// all v1.0) for a benchmark and returns its card.
func healthyCard(b *testing.B) *card.Card {
	b.Helper()
	a, err := lab.Start(lab.Healthy()...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Close() })
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkProbeCard probes the healthy three-interface agent with probe.Card: the
// interfaces in parallel, one raw lookup each.
func BenchmarkProbeCard(b *testing.B) {
	c := healthyCard(b)
	ctx := context.Background()
	for b.Loop() {
		for _, r := range probe.Card(ctx, c, probe.WithTimeout(5*time.Second)) {
			if r.Outcome != probe.Served {
				b.Fatalf("%s: %s (%s)", r.Interface, r.Outcome, r.Detail)
			}
		}
	}
}

// BenchmarkNaiveA2AGo does the same check the naive way: one a2a-go client per
// interface, sequentially, GetTask on a random id each (TaskNotFound = served).
func BenchmarkNaiveA2AGo(b *testing.B) {
	c := healthyCard(b)
	ctx := context.Background()
	grpcOpt := a2agrpc.WithGRPCTransport(grpcgo.WithTransportCredentials(insecure.NewCredentials()))
	for b.Loop() {
		for _, i := range c.Interfaces {
			ep := &a2a.AgentInterface{URL: i.URL, ProtocolBinding: i.Binding, ProtocolVersion: a2a.ProtocolVersion(i.ProtocolVersion)}
			client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, grpcOpt)
			if err != nil {
				b.Fatal(err)
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err = client.GetTask(cctx, &a2a.GetTaskRequest{ID: "a2abind-bench-no-such-task"})
			cancel()
			_ = client.Destroy()
			if !errors.Is(err, a2a.ErrTaskNotFound) {
				b.Fatalf("%s: %v", i, err)
			}
		}
	}
}
