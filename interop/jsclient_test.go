package interop

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/servertest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/server"
)

// jsBinding is how client.mjs is made to use one binding: the factories it gets and the
// preferredTransports that force the binding.
type jsBinding struct {
	binding    a2a.TransportProtocol
	transports string
}

var jsBindings = []jsBinding{
	{a2a.TransportProtocolJSONRPC, transportsDefault},
	{a2a.TransportProtocolHTTPJSON, transportsDefault},
	{a2a.TransportProtocolGRPC, transportsGRPC},
}

// forcedCalls are the client.mjs calls that run every operation on target, one call per
// binding of jsBindings (in that order), each forced onto its binding.
func forcedCalls(target string) []jsCall {
	var calls []jsCall
	for _, jb := range jsBindings {
		calls = append(calls, jsCall{Target: target, Transports: jb.transports, Prefer: []string{string(jb.binding)}})
	}
	return calls
}

// allOps are the operations each binding must carry.
var allOps = []string{"send", "get", "stream", "cancel", "cancel-completed", "get-unknown"}

// errorOps are the operations that must fail with an A2A error: name and reason.
var errorOps = map[string][2]string{
	"get-unknown":      {"TaskNotFoundError", "TASK_NOT_FOUND"},
	"cancel-completed": {"TaskNotCancelableError", "TASK_NOT_CANCELABLE"},
}

// declaredURL is the URL a card declares for a binding (its first v1.0 entry).
func declaredURL(t *testing.T, c *card.Card, b a2a.TransportProtocol) string {
	t.Helper()
	for _, i := range c.Interfaces {
		if i.Binding == b && i.ProtocolVersion == card.V1 {
			return i.URL
		}
	}
	t.Fatalf("card declares no %s 1.0 interface: %+v", b, c.Interfaces)
	return ""
}

// checkOps checks a full client.mjs run forced onto binding b at wantURL: every
// operation did what the A2A contract says, over that binding.
func checkOps(t *testing.T, run jsRun, b a2a.TransportProtocol, wantURL string) {
	t.Helper()
	checkOpsOnly(t, run, b, wantURL, allOps)
}

// checkOpsOnly is checkOps for the operations in ops.
func checkOpsOnly(t *testing.T, run jsRun, b a2a.TransportProtocol, wantURL string, ops []string) {
	t.Helper()
	if !run.Create.OK || run.Create.Transport != string(b) || run.Create.URL != wantURL {
		t.Fatalf("create = ok %v, %s at %q (%v), want ok, %s at %q\n%s",
			run.Create.OK, run.Create.Transport, run.Create.URL, run.Create.Error, b, wantURL, run.raw)
	}
	for _, op := range ops {
		s, ok := run.Ops[op]
		if !ok {
			t.Errorf("%s: no output line", op)
			continue
		}
		if s.Transport != string(b) {
			t.Errorf("%s ran over %s, want %s", op, s.Transport, b)
		}
		if want, ok := errorOps[op]; ok {
			if s.OK || s.Error == nil || s.Error.Name != want[0] || s.Error.Reason != want[1] {
				t.Errorf("%s = ok %v, error %v; want %s (%s)", op, s.OK, s.Error, want[0], want[1])
			}
			continue
		}
		if !s.OK || s.Result == nil {
			t.Errorf("%s failed: %v", op, s.Error)
			continue
		}
		r := s.Result
		if r.Kind != "task" || r.ID == "" {
			t.Errorf("%s = %s %q, want a task", op, r.Kind, r.ID)
		}
		switch op {
		case "send", "get", "stream":
			if r.State != "completed" || !strings.Contains(r.Text, "hello interop") {
				t.Errorf("%s = state %q text %q, want completed with the echo of %q", op, r.State, r.Text, "hello interop")
			}
		case "cancel":
			if r.State != "canceled" {
				t.Errorf("cancel = state %q (task was %q before), want canceled", r.State, r.Before)
			}
		}
		if op == "get" && r.ID != run.Ops["send"].Result.ID {
			t.Errorf("get returned task %q, want the sent task %q", r.ID, run.Ops["send"].Result.ID)
		}
		if op == "stream" {
			var artifact bool
			for _, e := range r.Events {
				artifact = artifact || e == "artifact-update"
			}
			if !artifact || len(r.Events) < 2 {
				t.Errorf("stream events = %v, want several, with an artifact update", r.Events)
			}
		}
	}
}

// TestJSClientAgainstA2AGo runs the a2a-js client, forced onto each binding, against an
// a2a-go v2.3.1 agent (lab.Healthy with a cancelable executor).
func TestJSClientAgainstA2AGo(t *testing.T) {
	t.Parallel()
	needNode(t)
	agent, err := lab.Start(append(lab.Healthy(), lab.WithExecutor(newHoldEcho()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Close() })
	c, err := card.Parse(agent.CardJSON)
	if err != nil {
		t.Fatal(err)
	}
	runs := runJSClients(t, forcedCalls(agent.BaseURL)...)
	for n, jb := range jsBindings {
		t.Run(string(jb.binding), func(t *testing.T) {
			checkOps(t, runs[n], jb.binding, declaredURL(t, c, jb.binding))
		})
	}
}

// TestJSClientAgainstGuardedServer runs the a2a-js client, forced onto each binding,
// against a2abind's guarded server (package server, as `a2abind serve` runs it) on
// loopback: v1.0 only with its own gRPC listener, with the v0.3 wire beside it (the
// union card), and with gRPC served on the HTTP port (h2c).
func TestJSClientAgainstGuardedServer(t *testing.T) {
	t.Parallel()
	needNode(t)
	configs := []struct {
		name string
		opts []server.Option
	}{
		{"grpc-listener", []server.Option{server.WithGRPCAddr("127.0.0.1:0")}},
		{"v03-union-card", []server.Option{server.WithGRPCAddr("127.0.0.1:0"), server.WithV03()}},
		{"grpc-on-http", []server.Option{server.WithGRPCOnHTTP()}},
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			t.Parallel()
			srv := servertest.Start(t, newHoldEcho(), cfg.opts...)
			runs := runJSClients(t, forcedCalls(srv.BaseURL())...)
			for n, jb := range jsBindings {
				t.Run(string(jb.binding), func(t *testing.T) {
					checkOps(t, runs[n], jb.binding, declaredURL(t, srv.Card(), jb.binding))
				})
			}
		})
	}
}
