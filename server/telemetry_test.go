package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
)

// A client's trace: the server spans must name this trace and this parent.
const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientParent = "00f067aa0ba902b7"
	grpcTrace    = "0af7651916cd43dd8448eb211c80319c"
	grpcParent   = "b7ad6b7169203331"
)

// TestServeContinuesIncomingTrace: a client sends traceparent on a JSON-RPC request
// and as gRPC metadata; the server's spans (otelhttp, otelgrpc), received by a real
// OTLP receiver, are server spans of that trace with the client's span as parent. The
// publish-time self-check is a span too, and the requests it made over the real
// sockets are server spans of its trace.
func TestServeContinuesIncomingTrace(t *testing.T) {
	rcv := otlptest.Setup(t, "grpc")
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	body := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"traced-task"}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.LocalBaseURL()+PathJSONRPC, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Traceparent", "00-"+clientTrace+"-"+clientParent+"-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()

	conn, err := grpc.NewClient(srv.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gctx := metadata.AppendToOutgoingContext(ctx, "traceparent", "00-"+grpcTrace+"-"+grpcParent+"-01", "a2a-version", "1.0")
	if _, err := a2apb.NewA2AServiceClient(conn).GetTask(gctx, &a2apb.GetTaskRequest{Id: "traced-task"}); err == nil {
		t.Fatal("GetTask of an unknown task answered a task")
	}

	for _, c := range []struct{ trace, parent, name string }{
		{clientTrace, clientParent, "POST " + PathJSONRPC},
		{grpcTrace, grpcParent, "lf.a2a.v1.A2AService/GetTask"},
	} {
		spans, err := rcv.Wait(5*time.Second, func([]otlptest.Span) bool { return len(rcv.Trace(c.trace)) > 0 })
		if err != nil {
			t.Fatalf("no span of trace %s arrived (%d spans): %v", c.trace, len(spans), err)
		}
		got := rcv.Trace(c.trace)
		if len(got) != 1 || got[0].ParentSpanID != c.parent || got[0].Kind.String() != "SPAN_KIND_SERVER" || got[0].Name != c.name {
			t.Fatalf("trace %s: spans %+v, want one server span %q under the client's span %s", c.trace, got, c.name, c.parent)
		}
	}

	check, err := rcv.WaitNamed(5*time.Second, SpanSelfCheck)
	if err != nil {
		t.Fatal(err)
	}
	if check.Attrs["a2abind.published"] != "true" || check.Attrs["a2abind.rounds"] == "" || check.Attrs["a2abind.interfaces"] != "3" {
		t.Errorf("self-check attributes %v", check.Attrs)
	}
	served := 0
	for _, s := range rcv.Trace(check.TraceID) {
		if s.Kind.String() == "SPAN_KIND_SERVER" {
			served++
		}
	}
	if served < 3 {
		t.Errorf("the self-check's trace has %d server spans, want one per interface at least", served)
	}
}
