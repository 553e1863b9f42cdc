package delegate

import (
	"errors"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/servertest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/wire"
)

// TestTenantReachesTheServer: on every binding (JSON-RPC, gRPC, HTTP+JSON; 1.0) the
// interface's declared tenant reaches the server, for unary, streaming and read calls,
// and a tenant the caller set in the request is overridden by the declared one (A2A
// §8.3.2 rule 4: clients send the declared value exactly).
func TestTenantReachesTheServer(t *testing.T) {
	srv := servertest.Start(t, lab.TenantEcho{}, server.WithTenant("acme"), server.WithGRPCAddr("127.0.0.1:0"))
	for _, b := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC, a2a.TransportProtocolHTTPJSON} {
		for _, callerTenant := range []string{"", "mallory"} {
			t.Run(string(b)+" caller tenant "+callerTenant, func(t *testing.T) {
				ctx := testContext(t)
				c := newTestClient(t, ctx, srv.BaseURL(), WithBindings(b))
				var tr Trace
				req := userMessage("hi")
				req.Tenant = callerTenant
				res, err := c.SendMessage(WithTrace(ctx, &tr), req)
				if err != nil {
					t.Fatalf("SendMessage() error = %v", err)
				}
				if got := echoed(res); got != "tenant=acme" {
					t.Errorf("SendMessage() reached the executor with %q, want tenant=acme", got)
				}
				if req.Tenant != callerTenant {
					t.Errorf("SendMessage() changed the caller's request tenant to %q", req.Tenant)
				}
				if diff := cmp.Diff([]wire.Outcome{wire.Served}, outcomes(tr.Attempts())); diff != "" {
					t.Errorf("attempts (-want +got):\n%s", diff)
				}
				if got := tr.Attempts()[0].Interface; got.Binding != b || got.Tenant != "acme" {
					t.Errorf("attempt interface = %s tenant %q, want %s tenant acme", got, got.Tenant, b)
				}

				task := res.(*a2a.Task)
				got, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID, Tenant: callerTenant})
				if err != nil || got.ID != task.ID {
					t.Errorf("GetTask(%s) = %v, %v, want the task", task.ID, got, err)
				}

				var texts []string
				for ev, err := range c.SendStreamingMessage(ctx, req) {
					if err != nil {
						t.Fatalf("SendStreamingMessage() error = %v", err)
					}
					if ae, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
						for _, p := range ae.Artifact.Parts {
							texts = append(texts, p.Text())
						}
					}
				}
				if diff := cmp.Diff([]string{"tenant=acme"}, texts); diff != "" {
					t.Errorf("SendStreamingMessage() artifacts (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestWrongDeclaredTenantStops: a card declaring another tenant than the server serves
// (every interface "globex") is refused by the agent with InvalidParams naming the
// served tenant; the agent answered, so delegate stops after one attempt (no fallback).
func TestWrongDeclaredTenantStops(t *testing.T) {
	srv := servertest.Start(t, lab.TenantEcho{}, server.WithTenant("acme"), server.WithGRPCAddr("127.0.0.1:0"))
	ctx := testContext(t)
	cd, err := card.Fetch(ctx, srv.BaseURL())
	if err != nil {
		t.Fatalf("card.Fetch() error = %v", err)
	}
	for i := range cd.Interfaces {
		cd.Interfaces[i].Tenant = "globex"
	}
	c, err := NewFromCard(cd)
	if err != nil {
		t.Fatalf("NewFromCard() error = %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_, err = c.SendMessage(ctx, userMessage("hi"))
	var de *Error
	if !errors.As(err, &de) || !errors.Is(err, ErrAgent) || !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("SendMessage() error = %v, want ErrAgent with a2a.ErrInvalidParams", err)
	}
	if !strings.Contains(err.Error(), `serves tenant "acme"`) || !strings.Contains(err.Error(), `carries tenant "globex"`) {
		t.Errorf("SendMessage() error = %v, want it to name the served and the sent tenant", err)
	}
	if diff := cmp.Diff([]wire.Outcome{wire.AgentError}, outcomes(de.Attempts)); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}
