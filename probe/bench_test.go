package probe_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	grpcgo "google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// healthyCard starts the healthy three-interface lab agent (JSON-RPC, gRPC, HTTP+JSON,
// all v1.0) for a benchmark and returns its card. With oneWay > 0 the card points at
// lab.Delay proxies that add that latency each way, as a network would.
func healthyCard(b *testing.B, oneWay time.Duration) *card.Card {
	b.Helper()
	a := labtest.Start(b, lab.Healthy()...)
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		b.Fatal(err)
	}
	if oneWay > 0 {
		labtest.Behind(b, c, oneWay, a.HTTPAddr, a.GRPCAddr)
	}
	return c
}

// wan is the one-way latency of the "network" benchmarks: a 4 ms round trip.
const wan = 2 * time.Millisecond

// BenchmarkProbeCard probes the healthy three-interface agent with probe.Card: the
// interfaces in parallel, one raw lookup each, on a fresh engine per call (connections
// opened and closed within the call, as a one-shot CLI run has them).
func BenchmarkProbeCard(b *testing.B) { benchProbe(b, 0) }

// BenchmarkProbeCardWAN is BenchmarkProbeCard across a 4 ms round trip.
func BenchmarkProbeCardWAN(b *testing.B) { benchProbe(b, wan) }

func benchProbe(b *testing.B, oneWay time.Duration) {
	c := healthyCard(b, oneWay)
	ctx := context.Background()
	for b.Loop() {
		for _, r := range probe.Card(ctx, c, probe.WithTimeout(5*time.Second)) {
			if r.Outcome != wire.Served {
				b.Fatalf("%s: %s (%s)", r.Interface, r.Outcome, r.Detail)
			}
		}
	}
}

// BenchmarkNaiveA2AGo does the same check the naive way: one a2a-go client per
// interface, sequentially, GetTask on a random id each (TaskNotFound = served). The
// HTTP transports use a2a-go's default client, so HTTP connections stay warm from one
// iteration to the next.
func BenchmarkNaiveA2AGo(b *testing.B) { benchNaive(b, false, 0) }

// BenchmarkNaiveA2AGoColdConns is the naive way with fresh HTTP connections each time,
// as a one-shot check (a CLI run) has them.
func BenchmarkNaiveA2AGoColdConns(b *testing.B) { benchNaive(b, true, 0) }

// BenchmarkNaiveA2AGoWAN is BenchmarkNaiveA2AGo across a 4 ms round trip.
func BenchmarkNaiveA2AGoWAN(b *testing.B) { benchNaive(b, false, wan) }

// BenchmarkNaiveA2AGoColdConnsWAN is BenchmarkNaiveA2AGoColdConns across a 4 ms round trip.
func BenchmarkNaiveA2AGoColdConnsWAN(b *testing.B) { benchNaive(b, true, wan) }

func benchNaive(b *testing.B, cold bool, oneWay time.Duration) {
	c := healthyCard(b, oneWay)
	ctx := context.Background()
	grpcOpt := a2agrpc.WithGRPCTransport(grpcgo.WithTransportCredentials(insecure.NewCredentials()))
	for b.Loop() {
		for _, i := range c.Interfaces {
			opts := []a2aclient.FactoryOption{grpcOpt}
			var hc *http.Client
			if cold {
				hc = &http.Client{Transport: &http.Transport{}}
				opts = append(opts, a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc))
			}
			ep := &a2a.AgentInterface{URL: i.URL, ProtocolBinding: i.Binding, ProtocolVersion: a2a.ProtocolVersion(i.ProtocolVersion)}
			client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, opts...)
			if err != nil {
				b.Fatal(err)
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err = client.GetTask(cctx, &a2a.GetTaskRequest{ID: "a2abind-bench-no-such-task"})
			cancel()
			_ = client.Destroy()
			if hc != nil {
				hc.CloseIdleConnections()
			}
			if !errors.Is(err, a2a.ErrTaskNotFound) {
				b.Fatalf("%s: %v", i, err)
			}
		}
	}
}
