package accesslog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/internal/accesslog"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/server"
)

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// lines are the access log lines written so far, decoded.
func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == accesslog.Message {
			out = append(out, m)
		}
	}
	return out
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const secret = "s3cr3t-never-logged"

// TestAccessLogOfServeAndGuard: an agent (serve's server, gRPC on its own listener and
// on the HTTP port) behind a guard, each with an access log. Calls on every binding,
// successes and A2A errors, carry a secret in the message, the Authorization header and
// the query; each request gives one line naming binding, method, status or A2A error,
// duration and bytes, and the secret is in no line.
func TestAccessLogOfServeAndGuard(t *testing.T) {
	t.Parallel()
	var serveLog, guardLog syncBuffer
	lis, err := (&netListen{}).open()
	if err != nil {
		t.Fatal(err)
	}
	front := "http://" + lis.Addr().String()
	srv, err := server.New(lab.Echo{}, server.WithHTTPAddr("127.0.0.1:0"), server.WithGRPCAddr("127.0.0.1:0"), server.WithGRPCOnHTTP(),
		server.WithPublicURL(front), server.WithAgentInfo("logged", "an agent with an access log", "1.0.0"),
		server.WithAccessLog(slog.New(slog.NewJSONHandler(&serveLog, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	g, err := guard.New("http://"+srv.HTTPAddr(), guard.WithListener(lis), guard.WithAccessLog(slog.New(slog.NewJSONHandler(&guardLog, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Shutdown(context.Background()) })

	auth := a2aclient.WithCallInterceptors(bearer{})
	send := func(ep *a2a.AgentInterface, opts ...a2aclient.FactoryOption) {
		t.Helper()
		c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, append(opts, auth)...)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = c.Destroy() }()
		if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(secret))}); err != nil {
			t.Fatalf("%s SendMessage: %v", ep.ProtocolBinding, err)
		}
		if _, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"}); err == nil {
			t.Fatalf("%s GetTask of a missing task succeeded", ep.ProtocolBinding)
		}
	}
	insec := a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))
	send(&a2a.AgentInterface{URL: front + server.PathJSONRPC + "?token=" + secret, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"})
	send(&a2a.AgentInterface{URL: front + server.PathREST, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: "1.0"})
	send(&a2a.AgentInterface{URL: lis.Addr().String(), ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: "1.0"}, insec)
	send(&a2a.AgentInterface{URL: srv.GRPCAddr(), ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: "1.0"}, insec)
	resp, err := http.Get(front + card.WellKnownPath)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()

	for name, buf := range map[string]*syncBuffer{"serve": &serveLog, "guard": &guardLog} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("%s access log carries the secret:\n%s", name, buf.String())
		}
	}
	type want struct{ binding, method, a2aError string }
	has := func(lines []map[string]any, w want) bool {
		for _, l := range lines {
			e, _ := l["a2aError"].(string)
			if l["binding"] == w.binding && l["method"] == w.method && e == w.a2aError &&
				l["duration"] != nil && l["bytesOut"] != nil && l["bytesIn"] != nil {
				return true
			}
		}
		return false
	}
	wants := []want{
		{"JSONRPC", "SendMessage", ""}, {"JSONRPC", "GetTask", "TASK_NOT_FOUND"},
		{"HTTP+JSON", "SendMessage", ""}, {"HTTP+JSON", "GetTask", "TASK_NOT_FOUND"},
		{"GRPC", "SendMessage", ""}, {"GRPC", "GetTask", "NotFound"},
	}
	guardLines, serveLines := guardLog.lines(t), serveLog.lines(t)
	for _, w := range wants {
		if !has(guardLines, w) {
			t.Errorf("guard access log has no line %+v:\n%s", w, guardLog.String())
		}
		if !has(serveLines, w) {
			t.Errorf("serve access log has no line %+v:\n%s", w, serveLog.String())
		}
	}
	cardLine := false
	for _, l := range guardLines {
		cardLine = cardLine || (l["path"] == card.WellKnownPath && l["status"] == float64(200) && l["binding"] == "")
	}
	if !cardLine {
		t.Errorf("guard access log has no line for the card request:\n%s", guardLog.String())
	}
}

// bearer sends a secret credential with every call.
type bearer struct {
	a2aclient.PassthroughInterceptor
}

func (bearer) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	req.ServiceParams.Append("Authorization", "Bearer "+secret)
	return ctx, nil, nil
}

// netListen opens the guard's loopback listener before the agent, whose card names it.
type netListen struct{}

func (netListen) open() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
