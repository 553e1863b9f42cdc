package interop

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
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
	g := startGuardAt(t, agent.BaseURL, append([]guard.Option{guard.WithListener(lis)}, opts...)...)
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

// TestGuardInFrontOfJSAgents is the guard's purpose: an agent a2abind did not build (an
// a2a-js 1.3.0 server) behind `a2abind guard`. Strict withholds the lying cards and
// serves the honest one byte for byte; --normalize turns every lying card into one that
// probe passes and on which the delegate succeeds in one attempt.
func TestGuardInFrontOfJSAgents(t *testing.T) {
	t.Parallel()
	needNode(t)
	for _, mode := range []string{modeHonest, modeSeed, modeGRPCAtHTTP, modeGRPCNoService} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			js := startJSServer(t, mode)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()

			strict := startGuardAt(t, js.BaseURL)
			cardURL := strict.URL() + card.WellKnownPath
			status, body := httpGet(t, cardURL)
			if mode == modeHonest {
				_, upstream := httpGet(t, js.CardURL)
				if status != http.StatusOK || body != upstream {
					t.Errorf("strict: card = %d, want 200 with the upstream bytes", status)
				}
				return
			}
			if status != http.StatusServiceUnavailable || strict.State().Published {
				t.Errorf("strict: card = %d, want 503 (findings %+v)", status, strict.State().Findings)
			}

			norm := startGuardAt(t, js.BaseURL, guard.WithNormalize())
			c, err := card.Fetch(ctx, norm.URL())
			if err != nil {
				t.Fatalf("normalize: %v (%s)", err, norm.State().Reason)
			}
			if rep := probe.Diagnose(c, probe.Card(ctx, c, probe.WithTimeout(5*time.Second))); !rep.OK() {
				t.Errorf("normalize: probe findings %+v", rep.Findings)
			}
			cli, err := delegate.NewFromCard(c, delegate.WithPlaintextGRPC(), delegate.WithAttemptTimeout(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			var tr delegate.Trace
			if _, err := cli.SendMessage(delegate.WithTrace(ctx, &tr), &a2a.SendMessageRequest{
				Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello interop"))}); err != nil || len(tr.Attempts()) != 1 {
				t.Errorf("normalize: delegate = %v after %d attempts, want success in 1 (%+v)", err, len(tr.Attempts()), tr.Attempts())
			}
		})
	}
}

// startGuardAt starts a guard on loopback in front of upstream, stopped when the test ends.
func startGuardAt(t *testing.T, upstream string, opts ...guard.Option) *guard.Guard {
	t.Helper()
	g, err := guard.New(upstream, opts...)
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
	return g
}

// httpGet fetches url on a fresh connection and returns the status and body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Close = true
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, card.DefaultMaxBytes))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
