package delegate

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/wire"
)

// oneInterface is a card declaring only iface, read as from a file (no origin).
func oneInterface(t *testing.T, name string, ifaces ...card.Interface) *card.Card {
	t.Helper()
	return &card.Card{Name: name, Interfaces: ifaces}
}

// sendOnce sends one message through a fresh client for c and returns the answer's
// echo, the attempts and the error.
func sendOnce(t *testing.T, c *card.Card, opts ...Option) (string, []Attempt, error) {
	t.Helper()
	ctx := testContext(t)
	cl, err := NewFromCard(c, append([]Option{WithAttemptTimeout(5 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatalf("NewFromCard() error = %v", err)
	}
	defer cl.Close()
	var tr Trace
	res, err := cl.SendMessage(WithTrace(ctx, &tr), userMessage("way"))
	return echoed(res), tr.Attempts(), err
}

// startV1Only fronts a2abind's server (serving v0.3 on every binding) with a listener
// that serves only its v0.3 HTTP+JSON routes under {url}/v1/, as @a2a-js/sdk 0.3
// does, and answers 404 everywhere else. It returns the declared v0.3 HTTP+JSON URL.
func startV1Only(t *testing.T) string {
	t.Helper()
	srv, err := server.New(lab.Echo{}, server.WithV03(),
		server.WithAgentInfo(lab.EchoName, lab.EchoDescription, lab.EchoVersion, lab.EchoSkill))
	if err != nil {
		t.Fatalf("server.New() error = %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	if err := srv.Start(testContext(t)); err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle(server.PathRESTV03+"/v1/", labtest.Proxy(t, srv.LocalBaseURL()))
	front := httptest.NewServer(mux)
	t.Cleanup(front.Close)
	return front.URL + server.PathRESTV03
}

// TestSendUsesTheWayProbeFound: what probe calls served, the delegate delivers to: v0.3
// HTTP+JSON served only under {url}/v1 (the v0.3 specification's routes, a2a-js 0.3's),
// and plaintext gRPC at a bare loopback host:port in a card file (no --grpc-plaintext).
// Each is one attempt, served, the message executed once.
func TestSendUsesTheWayProbeFound(t *testing.T) {
	rest := startV1Only(t)
	agent := labtest.Start(t, lab.Healthy()...)
	for _, tt := range []struct {
		name  string
		iface card.Interface
		way   probe.Way
	}{
		{"v0.3 HTTP+JSON under /v1", card.Interface{URL: rest, Binding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: card.V03}, probe.Way{Prefix: "/v1"}},
		{"plaintext gRPC at a bare loopback address", card.Interface{URL: agent.GRPCAddr, Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1}, probe.Way{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := probe.Interface(testContext(t), tt.iface)
			if r.Outcome != wire.Served || r.Way != tt.way {
				t.Fatalf("probe: %s, way %+v (%s); want served, way %+v", r.Outcome, r.Way, r.Detail, tt.way)
			}
			got, attempts, err := sendOnce(t, oneInterface(t, "way", tt.iface))
			if err != nil || got != "way" {
				t.Fatalf("SendMessage() = %q, %v; want the echo", got, err)
			}
			if diff := cmp.Diff([]wire.Outcome{wire.Served}, outcomes(attempts)); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("v0.3 HTTP+JSON under /v1: stream and get", func(t *testing.T) {
		ctx := testContext(t)
		cl, err := NewFromCard(oneInterface(t, "way", card.Interface{URL: rest, Binding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: card.V03}))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		var last a2a.Event
		n := 0
		for ev, err := range cl.SendStreamingMessage(ctx, userMessage("streamed")) {
			if err != nil {
				t.Fatalf("SendStreamingMessage() error = %v after %d events", err, n)
			}
			last, n = ev, n+1
		}
		st, ok := last.(*a2a.TaskStatusUpdateEvent)
		if n < 2 || !ok || st.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("stream: %d events ending %T, want a completed task", n, last)
		}
		task, err := cl.GetTask(ctx, &a2a.GetTaskRequest{ID: st.TaskID})
		if err != nil || task.ID != st.TaskID {
			t.Errorf("GetTask(%s) = %v, %v", st.TaskID, task, err)
		}
		// An A2A error in the v0.3 REST body ({"code":-32001}) is the agent's answer, read
		// as probe reads it: TaskNotFound, agent_error, not a missing route.
		var tr Trace
		_, err = cl.GetTask(WithTrace(ctx, &tr), &a2a.GetTaskRequest{ID: "no-such-task"})
		if !errors.Is(err, a2a.ErrTaskNotFound) || !errors.Is(err, ErrAgent) || len(tr.Attempts()) != 1 || tr.Attempts()[0].Outcome != wire.AgentError {
			t.Errorf("GetTask(unknown) = %v (attempts %v), want TaskNotFound from the agent in one agent_error attempt", err, outcomes(tr.Attempts()))
		}
	})
}

// notLoopback makes every address count as another host's, as the plaintext rule sees it.
func notLoopback() Option {
	return func(o *options) { o.loopback = func(addr.Address) bool { return false } }
}

// TestPlaintextGRPCOffLoopback: at a bare host:port that is not a loopback address the
// delegate sends no message in plaintext unless asked: the TLS attempt fails, and the
// attempt says plaintext gRPC is served there (PlaintextServed, naming
// --grpc-plaintext); with WithPlaintextGRPC the message is delivered.
func TestPlaintextGRPCOffLoopback(t *testing.T) {
	agent := labtest.Start(t, lab.Healthy()...)
	c := oneInterface(t, "remote", card.Interface{URL: agent.GRPCAddr, Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1})
	_, attempts, err := sendOnce(t, c, notLoopback())
	if err == nil || len(attempts) != 1 {
		t.Fatalf("SendMessage() = %v with %d attempts, want a failure in one", err, len(attempts))
	}
	if a := attempts[0]; !a.PlaintextServed || !strings.Contains(a.Detail, "--grpc-plaintext") {
		t.Errorf("attempt = %s (plaintext served %v), want it to say plaintext gRPC is served there", a, a.PlaintextServed)
	}
	got, attempts, err := sendOnce(t, c, notLoopback(), WithPlaintextGRPC())
	if err != nil || got != "way" || len(attempts) != 1 {
		t.Errorf("with WithPlaintextGRPC: %q, %v, %d attempts; want the echo in one", got, err, len(attempts))
	}
}

// TestCacheRemembersTheWay: the disk cache keeps how an interface answered and never
// puts first one the current options cannot use. After a gRPC run that delivered over
// plaintext gRPC (WithPlaintextGRPC), a gRPC run on loopback answers there again in one
// attempt; an unrestricted run off loopback starts with the card's JSON-RPC interface
// and makes one attempt; and the order never puts the remembered interface first when
// the way it answered is not usable now.
func TestCacheRemembersTheWay(t *testing.T) {
	agent := labtest.Start(t, lab.Healthy()...)
	grpcIface := card.Interface{URL: agent.GRPCAddr, Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1}
	c := oneInterface(t, "remembered",
		card.Interface{URL: agent.URL(lab.PathJSONRPC), Binding: a2a.TransportProtocolJSONRPC, ProtocolVersion: card.V1},
		grpcIface)
	c.Location = "file:remembered.json"
	dir := t.TempDir()
	run := func(opts ...Option) []Attempt {
		t.Helper()
		got, attempts, err := sendOnce(t, c, append(opts, WithCache(NewCache(WithCacheDir(dir))))...)
		if err != nil || got != "way" {
			t.Fatalf("SendMessage() = %q, %v", got, err)
		}
		return attempts
	}
	onGRPC := WithBindings(a2a.TransportProtocolGRPC)
	if first := run(notLoopback(), WithPlaintextGRPC(), onGRPC); len(first) != 1 || first[0].Interface.Binding != a2a.TransportProtocolGRPC {
		t.Fatalf("first run attempts %v, want one on gRPC", first)
	}
	if loop := run(onGRPC); len(loop) != 1 || loop[0].Interface.Binding != a2a.TransportProtocolGRPC {
		t.Errorf("gRPC run on loopback: attempts %v, want one, on the remembered gRPC interface", loop)
	}
	if plain := run(notLoopback()); len(plain) != 1 || plain[0].Interface.Binding != a2a.TransportProtocolJSONRPC {
		t.Errorf("plain run off loopback: attempts %v, want one, on JSON-RPC", plain)
	}
	cache, key := NewCache(), agentKey(c, nil)
	cache.learn(c, key, grpcIface, probe.Way{}, true)
	cache.record(c, key, grpcIface, true)
	never := func(card.Interface, probe.Way) bool { return false }
	if got := cache.orderUsable(c, key, c.Interfaces, never); got[0].Binding != a2a.TransportProtocolJSONRPC {
		t.Errorf("an unusable remembered interface is put first: %v", got)
	}
	if got := cache.orderUsable(c, key, c.Interfaces, nil); got[0].Binding != a2a.TransportProtocolGRPC {
		t.Errorf("a usable remembered interface is not put first: %v", got)
	}
}
