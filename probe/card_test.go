package probe_test

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"
	grpcgo "google.golang.org/grpc"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// countingExecutor counts every call that would run the agent (a message or a cancel).
type countingExecutor struct{ calls atomic.Int64 }

func (e *countingExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	e.calls.Add(1)
	return lab.Echo{}.Execute(ctx, ec)
}

func (e *countingExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	e.calls.Add(1)
	return lab.Echo{}.Cancel(ctx, ec)
}

// TestCard_SideEffectFree probes every binding in both versions, misdeclared ones
// included (so the cross-binding search runs too), and checks the agent never ran.
func TestCard_SideEffectFree(t *testing.T) {
	t.Parallel()
	exec := &countingExecutor{}
	a := labtest.Start(t, append(lab.Union(), lab.WithExecutor(exec))...)
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		t.Fatal(err)
	}
	// Add every wrong combination too: each binding declared at each other binding's URL.
	urls := []string{a.URL(lab.PathJSONRPC), a.GRPCAddr, a.URL(lab.PathREST), a.URL(lab.PathJSONRPCV03), a.URL(lab.PathRESTV03)}
	for _, u := range urls {
		for _, b := range addr.CoreBindings {
			c.Interfaces = append(c.Interfaces, iface(u, b, card.V1), iface(u, b, card.V03))
		}
	}
	results := probe.Card(t.Context(), c, probe.WithTimeout(5*time.Second), probe.WithConn(addr.Conn{MaxInterfaces: len(c.Interfaces)}))
	if len(results) != len(c.Interfaces) {
		t.Fatalf("Card() = %d results, want %d", len(results), len(c.Interfaces))
	}
	if n := exec.calls.Load(); n != 0 {
		t.Errorf("the agent's executor ran %d times during probing, want 0 (probes must not send messages)", n)
	}
	// The counter counts: one real message runs the executor once.
	client, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{
		{URL: a.URL(lab.PathJSONRPC), ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.ProtocolVersion(card.V1)}})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Destroy()
	if _, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))}); err != nil {
		t.Fatalf("SendMessage() = %v", err)
	}
	if n := exec.calls.Load(); n != 1 {
		t.Errorf("the executor ran %d times for one message, want 1: the counter does not count", n)
	}
}

// TestCard_OrderAndSiblings checks that results come back in card order, and that a
// binding served at a sibling URL the card declares is noted but never attributed to
// another URL: what is "really there" comes from the declared URL itself.
func TestCard_OrderAndSiblings(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	c := &card.Card{Interfaces: []card.Interface{
		iface(a.HTTPAddr, grpc, card.V1), // gRPC declared at the HTTP port; JSON-RPC is at /a2a/jsonrpc there
		iface(a.URL(lab.PathJSONRPC), jsonrpc, card.V1),
		iface(a.GRPCAddr, grpc, card.V1),
		iface(a.URL(lab.PathREST), httpjson, card.V1),
	}}
	results := probe.Card(t.Context(), c, probe.WithTimeout(5*time.Second))
	var got []verdict
	for n, r := range results {
		if r.Interface != c.Interfaces[n] {
			t.Errorf("result %d is for %v, want %v (card order)", n, r.Interface, c.Interfaces[n])
		}
		got = append(got, verdictOf(r))
	}
	want := []verdict{
		{wire.WrongBinding, "", ""}, // an HTTP/1.1 server answers there, no A2A binding at its root
		{wire.Served, jsonrpc, card.V1},
		{wire.Served, grpc, card.V1},
		{wire.Served, httpjson, card.V1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Card() verdicts mismatch (-want +got):\n%s", diff)
	}
	if note := "JSONRPC 1.0 is served at " + a.URL(lab.PathJSONRPC) + " on the same host and port"; !strings.Contains(results[0].Detail, note) {
		t.Errorf("Card()[0].Detail = %q, want the note %q", results[0].Detail, note)
	}
	if probe.Card(t.Context(), nil) != nil {
		t.Errorf("Card(nil) != nil")
	}
}

// TestCard_Bounded checks that peers that never answer cost the budget and no more: a
// cancelled context ends everything, and each interface reports timeout.
func TestCard_Bounded(t *testing.T) {
	t.Parallel()
	silent := startListener(t, lab.Silent)
	c := &card.Card{Interfaces: []card.Interface{
		iface("http://"+silent.Addr+"/a", jsonrpc, card.V1),
		iface(silent.Addr, grpc, card.V1),
		iface("http://"+silent.Addr+"/r", httpjson, card.V03),
	}}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	done := make(chan []probe.Result, 1)
	go func() { done <- probe.Card(ctx, c) }() // default per-interface budget: the context decides
	select {
	case results := <-done:
		for _, r := range results {
			if r.Outcome != wire.Timeout {
				t.Errorf("%s: outcome %s, want timeout (%s)", r.Interface, r.Outcome, r.Detail)
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Card() outlived its context by far")
	}
}

// TestCard_CustomBinding checks a binding a2abind cannot speak: it says what is there.
func TestCard_CustomBinding(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	r := probe.Interface(t.Context(), iface(a.URL(lab.PathJSONRPC), "https://example.com/bindings/ws", card.V1))
	if diff := cmp.Diff(verdict{wire.WrongBinding, jsonrpc, card.V1}, verdictOf(r)); diff != "" {
		t.Errorf("Interface(custom) mismatch (-want +got):\n%s\n%s", diff, r.Detail)
	}
	if !strings.Contains(r.Detail, "not one a2abind can check") {
		t.Errorf("Detail = %q, want it to say the binding cannot be checked", r.Detail)
	}
}

// seen is one request a recording server received.
type seen struct {
	Method, Path, Version, Auth, ContentType, RPCMethod, Tenant string
}

// TestInterface_Requests checks what the probers put on the wire for each binding and
// version: method names, A2A-Version (1.0 sends "1.0", 0.3 sends none), routes, tenant
// and credentials. The server answers as a served interface would.
func TestInterface_Requests(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		got []seen
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		var rpc struct {
			Method string `json:"method"`
			Params struct {
				ID     string `json:"id"`
				Tenant string `json:"tenant"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &rpc)
		s := seen{Method: r.Method, Path: r.URL.Path, Version: strings.Join(r.Header.Values("A2A-Version"), ","),
			Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type"), RPCMethod: rpc.Method, Tenant: rpc.Params.Tenant}
		if strings.Contains(s.Path, "a2abind-probe-") {
			s.Path = s.Path[:strings.Index(s.Path, "a2abind-probe-")] + "{id}"
		}
		mu.Lock()
		got = append(got, s)
		mu.Unlock()
		if r.Method == http.MethodPost {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"task not found"}}`)
			return
		}
		if r.Header.Get("A2A-Version") == "" {
			w.Header().Set("Content-Type", "application/problem+json") // as a2a-go's v0.3 handler
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":404,"status":"NOT_FOUND","message":"task not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`)
	}))
	t.Cleanup(srv.Close)

	tests := []struct {
		name  string
		iface card.Interface
		want  []seen
	}{
		{"JSON-RPC 1.0 with tenant", card.Interface{URL: srv.URL + "/rpc", Binding: jsonrpc, ProtocolVersion: card.V1, Tenant: "acme"},
			[]seen{{Method: "POST", Path: "/rpc", Version: "1.0", Auth: "Bearer t", ContentType: "application/json", RPCMethod: "GetTask", Tenant: "acme"}}},
		{"JSON-RPC 0.3", card.Interface{URL: srv.URL + "/rpc", Binding: jsonrpc, ProtocolVersion: card.V03},
			[]seen{{Method: "POST", Path: "/rpc", Auth: "Bearer t", ContentType: "application/json", RPCMethod: "tasks/get"}}},
		{"HTTP+JSON 1.0 with tenant", card.Interface{URL: srv.URL + "/rest/", Binding: httpjson, ProtocolVersion: card.V1, Tenant: "acme"},
			[]seen{{Method: "GET", Path: "/rest/acme/tasks/{id}", Version: "1.0", Auth: "Bearer t"}}},
		{"HTTP+JSON 0.3", card.Interface{URL: srv.URL + "/rest", Binding: httpjson, ProtocolVersion: card.V03},
			[]seen{{Method: "GET", Path: "/rest/tasks/{id}", Auth: "Bearer t"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			r := probe.Interface(t.Context(), tt.iface, probe.WithConn(addr.Conn{Header: http.Header{"Authorization": {"Bearer t"}}}))
			if r.Outcome != wire.Served {
				t.Errorf("Interface() outcome = %s (%s), want served", r.Outcome, r.Detail)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("requests mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCard_ThroughDelay probes the healthy agent through lab.Delay proxies (the
// benchmarks' slow network): every interface is still served.
func TestCard_ThroughDelay(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{a.HTTPAddr, a.GRPCAddr} {
		d, err := lab.NewDelay(addr, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		for n := range c.Interfaces {
			c.Interfaces[n].URL = strings.Replace(c.Interfaces[n].URL, addr, d.Addr, 1)
		}
	}
	for _, r := range probe.Card(t.Context(), c, probe.WithTimeout(5*time.Second)) {
		if r.Outcome != wire.Served {
			t.Errorf("%s through a delay: %s (%s)", r.Interface, r.Outcome, r.Detail)
		}
	}
}

// TestInterface_GRPCRequests checks the gRPC lookups: the service and method of each
// version, a2a-version metadata on 1.0 only, the tenant and the credentials.
func TestInterface_GRPCRequests(t *testing.T) {
	t.Parallel()
	type call struct{ Method, Version, Auth, Tenant string }
	var (
		mu  sync.Mutex
		got []call
	)
	srv := grpcgo.NewServer(grpcgo.UnknownServiceHandler(func(_ any, stream grpcgo.ServerStream) error {
		method, _ := grpcgo.MethodFromServerStream(stream)
		md, _ := metadata.FromIncomingContext(stream.Context())
		c := call{Method: method, Version: strings.Join(md.Get("a2a-version"), ","), Auth: strings.Join(md.Get("authorization"), ",")}
		if strings.HasPrefix(method, "/lf.a2a.v1.") {
			var req a2apb.GetTaskRequest
			if err := stream.RecvMsg(&req); err != nil {
				return err
			}
			c.Tenant = req.GetTenant()
		}
		mu.Lock()
		got = append(got, c)
		mu.Unlock()
		return status.Error(grpccodes.NotFound, "task not found")
	}))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)

	tests := []struct {
		name  string
		iface card.Interface
		want  []call
	}{
		{"1.0 with tenant", card.Interface{URL: lis.Addr().String(), Binding: grpc, ProtocolVersion: card.V1, Tenant: "acme"},
			[]call{{Method: "/lf.a2a.v1.A2AService/GetTask", Version: "1.0", Auth: "Bearer t", Tenant: "acme"}}},
		{"0.3", card.Interface{URL: lis.Addr().String(), Binding: grpc, ProtocolVersion: card.V03},
			[]call{{Method: "/a2a.v1.A2AService/GetTask", Auth: "Bearer t"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			r := probe.Interface(t.Context(), tt.iface, probe.WithConn(addr.Conn{Header: http.Header{"Authorization": {"Bearer t"}}}))
			if r.Outcome != wire.Served {
				t.Errorf("Interface() outcome = %s (%s), want served", r.Outcome, r.Detail)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
