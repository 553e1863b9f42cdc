package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// TestGuardKeepsHTTP1UpstreamsProof: a card naming gRPC at an HTTP/1-only agent's own
// address (an Express a2a-js server, a Go net/http server, a hand-written HTTP/1.0
// server), probed and sent to directly and through a guard in front of the agent (the
// card then names the guard's address). An HTTP/1 server answering a gRPC call (HTTP/2)
// proves that no gRPC handler ran; the guard's answer must keep that proof: probe's
// outcome for the gRPC interface is the same through the guard as direct, and send falls
// back to JSON-RPC and delivers the message once.
func TestGuardKeepsHTTP1UpstreamsProof(t *testing.T) {
	t.Parallel()
	type upstream struct {
		base, jsonrpc string
		executions    func() int64 // nil: the upstream cannot count them
	}
	for _, tt := range []struct {
		name  string
		start func(t *testing.T) upstream
	}{
		{"node-express", func(t *testing.T) upstream {
			js := startJSServer(t, modeHonest)
			return upstream{base: js.BaseURL, jsonrpc: js.JSONRPC}
		}},
		{"go-net-http", func(t *testing.T) upstream {
			counter := &lab.Counter{}
			a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithExecutor(counter))
			return upstream{a.BaseURL, a.BaseURL + lab.PathJSONRPC, counter.Executions}
		}},
		{"raw-http10", func(t *testing.T) upstream {
			base, n := startHTTP10Agent(t)
			return upstream{base, base + "/", n.Load}
		}},
		{"grpc-go-unknown-service", func(t *testing.T) upstream {
			// HTTP/2 is served here: grpc-go with no A2A service answers every gRPC call
			// UNIMPLEMENTED "unknown service", the rest goes to an HTTP/1 lab agent.
			counter := &lab.Counter{}
			a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithExecutor(counter))
			bare, rest := grpc.NewServer(), httputil.NewSingleHostReverseProxy(mustURL(t, a.BaseURL))
			srv := &http.Server{Protocols: new(http.Protocols), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.ProtoMajor == 2 && card.IsGRPCRequest(r) {
					bare.ServeHTTP(w, r)
					return
				}
				rest.ServeHTTP(w, r)
			})}
			srv.Protocols.SetHTTP1(true)
			srv.Protocols.SetUnencryptedHTTP2(true)
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = srv.Serve(lis) }()
			t.Cleanup(func() { _ = srv.Close() })
			base := "http://" + lis.Addr().String()
			return upstream{base, base + lab.PathJSONRPC, counter.Executions}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			up := tt.start(t)
			g := startGuardAt(t, up.base)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			jsonrpcPath := strings.TrimPrefix(up.jsonrpc, up.base)
			direct, guarded := grpcFirstCard(t, up.base, jsonrpcPath), grpcFirstCard(t, g.URL(), jsonrpcPath)

			want := probe.Card(ctx, direct, probe.WithTimeout(5*time.Second))[0]
			got := probe.Card(ctx, guarded, probe.WithTimeout(5*time.Second))[0]
			t.Logf("direct: %s %s; through the guard: %s %s", want.Outcome, want.Detail, got.Outcome, got.Detail)
			if want.Outcome.ReachedHandler() {
				t.Fatalf("direct gRPC probe of an HTTP/1 server = %s, want an outcome that reached no handler", want.Outcome)
			}
			if got.Outcome != want.Outcome {
				t.Errorf("gRPC probe through the guard = %s (%s), direct = %s", got.Outcome, got.Detail, want.Outcome)
			}

			cli, err := delegate.NewFromCard(guarded, delegate.WithPlaintextGRPC(), delegate.WithAttemptTimeout(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			var before int64
			if up.executions != nil {
				before = up.executions()
			}
			var tr delegate.Trace
			res, err := cli.SendMessage(delegate.WithTrace(ctx, &tr), &a2a.SendMessageRequest{
				Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("once through the guard"))})
			atts := tr.Attempts()
			if err != nil || res == nil || len(atts) != 2 || atts[1].Interface.Binding != a2a.TransportProtocolJSONRPC {
				t.Fatalf("send through the guard = %v after %+v, want a fall back from gRPC to JSON-RPC", err, atts)
			}
			if atts[0].Outcome.ReachedHandler() {
				t.Errorf("the gRPC attempt through the guard = %s, want one that reached no handler", atts[0].Outcome)
			}
			if up.executions != nil {
				if n := up.executions() - before; n != 1 {
					t.Errorf("the upstream executed the message %d times, want 1", n)
				}
			}
		})
	}
}

// grpcFirstCard is a v1.0 card declaring gRPC at base's host:port (where only HTTP/1 is
// served), then JSON-RPC at base+jsonrpcPath.
func grpcFirstCard(t *testing.T, base, jsonrpcPath string) *card.Card {
	t.Helper()
	raw, err := json.Marshal(lab.V1Card("grpc-at-http1",
		lab.Decl{URL: strings.TrimPrefix(base, "http://"), Binding: lab.GRPC, Version: card.V1},
		lab.Decl{URL: base + jsonrpcPath, Binding: lab.JSONRPC, Version: card.V1}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := card.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startHTTP10Agent starts a hand-written HTTP/1.0 A2A agent on loopback: one request per
// connection, answered with an HTTP/1.0 status line, then the connection is closed. It
// serves its card and JSON-RPC 1.0 at "/" (SendMessage answers a completed task and is
// counted in executions, every other method TaskNotFound), and answers anything it
// cannot read, the HTTP/2 preface included, 400.
func startHTTP10Agent(t *testing.T) (base string, executions *atomic.Int64) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base = "http://" + lis.Addr().String()
	cardJSON, err := json.Marshal(lab.V1Card("http10", lab.Decl{URL: base + "/", Binding: lab.JSONRPC, Version: card.V1}))
	if err != nil {
		t.Fatal(err)
	}
	executions = new(atomic.Int64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := lis.Accept()
			if err != nil {
				return
			}
			go serveHTTP10(conn, cardJSON, executions)
		}
	}()
	t.Cleanup(func() { _ = lis.Close(); <-done })
	return base, executions
}

func serveHTTP10(conn net.Conn, cardJSON []byte, executions *atomic.Int64) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	answer := func(status, contentType string, body []byte) {
		_, _ = fmt.Fprintf(conn, "HTTP/1.0 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s", status, contentType, len(body), body)
	}
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil || req.ProtoMajor != 1 {
		answer("400 Bad Request", "text/plain", []byte("bad request\n"))
		return
	}
	if req.Method == http.MethodGet && req.URL.Path == card.WellKnownPath {
		answer("200 OK", "application/json", cardJSON)
		return
	}
	var call struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.NewDecoder(io.LimitReader(req.Body, 1<<20)).Decode(&call); err != nil || req.Method != http.MethodPost {
		answer("400 Bad Request", "text/plain", []byte("bad request\n"))
		return
	}
	out := `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":"task not found"}}`
	if call.Method == "SendMessage" {
		executions.Add(1)
		out = `{"jsonrpc":"2.0","id":%s,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}}`
	}
	answer("200 OK", "application/json", fmt.Appendf(nil, out, call.ID))
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
