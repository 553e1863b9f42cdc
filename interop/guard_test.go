package interop

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
)

// startGuardFor starts a lab agent whose card sends clients through a guard (the card
// names the guard's address; card(front, agent) builds it), then the guard in front of
// it; both stop when the test ends.
func startGuardFor(t *testing.T, build func(front string, a *lab.Agent) any, agentOpts []lab.Option, opts ...guard.Option) (*guard.Guard, *lab.Agent) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	front := "http://" + lis.Addr().String()
	agent, err := lab.Start(append(agentOpts, lab.WithCard(func(a *lab.Agent) any { return build(front, a) }))...)
	if err != nil {
		_ = lis.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	g, err := guard.New(agent.BaseURL, append([]guard.Option{guard.WithListener(lis)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := g.Shutdown(ctx); err != nil {
			t.Errorf("guard Shutdown() = %v", err)
		}
	})
	if s := g.State(); !s.Published {
		t.Fatalf("guard withholds the card: %s %+v", s.Reason, s.Findings)
	}
	return g, agent
}

// TestJSClientThroughGuard runs the a2a-js 1.3.0 client, forced onto each binding,
// against an a2a-go agent behind a strict guard: the card (served by the guard) sends
// JSON-RPC and HTTP+JSON through the guard's proxy (streams included) and gRPC to the
// agent's own port.
func TestJSClientThroughGuard(t *testing.T) {
	t.Parallel()
	needNode(t)
	g, _ := startGuardFor(t, func(front string, a *lab.Agent) any {
		return lab.V1Card("guarded",
			lab.Decl{URL: front + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
			lab.Decl{URL: front + lab.PathREST, Binding: lab.HTTPJSON, Version: card.V1})
	}, []lab.Option{lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST), lab.WithGRPC(lab.GRPCV1),
		lab.WithExecutor(newHoldEcho())})
	c, err := card.Fetch(t.Context(), g.URL())
	if err != nil {
		t.Fatal(err)
	}
	runs := runJSClients(t, forcedCalls(g.URL())...)
	for n, jb := range jsBindings {
		t.Run(string(jb.binding), func(t *testing.T) {
			checkOps(t, runs[n], jb.binding, declaredURL(t, c, jb.binding))
		})
	}
}

// TestJSClientThroughNormalizingGuard: the seed agent (v1.0 card shape) behind
// `guard --normalize`, its card naming the guard's address. The a2a-js client with
// every transport and no preference of its own takes the card's preference: on the
// upstream card that is gRPC at the JSON-RPC port; on the normalized card it is JSON-RPC,
// and every operation works, through the guard.
func TestJSClientThroughNormalizingGuard(t *testing.T) {
	t.Parallel()
	needNode(t)
	g, agent := startGuardFor(t, func(front string, a *lab.Agent) any {
		return lab.V1Card("seed-agent-v1",
			lab.Decl{URL: front, Binding: lab.GRPC, Version: card.V1},
			lab.Decl{URL: front, Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1})
	}, []lab.Option{lab.WithJSONRPC(card.V1, "/"), lab.WithGRPC(lab.GRPCNoService), lab.WithExecutor(newHoldEcho())}, guard.WithNormalize())
	runs := runJSClients(t, jsCall{Target: g.URL(), Transports: transportsGRPC},
		jsCall{Target: agent.BaseURL, Transports: transportsGRPC, Ops: []string{"send"}})
	checkOps(t, runs[0], a2a.TransportProtocolJSONRPC, g.URL())
	upstream := runs[1]
	if upstream.Create.Transport != string(a2a.TransportProtocolGRPC) || upstream.Ops["send"].OK {
		t.Errorf("on the upstream card the client took %s and send ok = %v; want gRPC and a failure (the lying card)\n%s",
			upstream.Create.Transport, upstream.Ops["send"].OK, upstream.raw)
	}
}
