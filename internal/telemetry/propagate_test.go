package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/a2abind/a2abind/internal/telemetry"
)

// recordingSpan is a context with a real, sampled span of an in-memory provider
// (not the global one), as a library caller would pass it.
func recordingSpan(t *testing.T) (context.Context, trace.Span) {
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp.Tracer("test").Start(context.Background(), "caller")
}

func TestTransportInjectsTraceparent(t *testing.T) {
	clearEnv(t)
	_, err := telemetry.Setup(context.Background()) // installs the W3C propagator
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan http.Header, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() }))
	defer srv.Close()
	client := &http.Client{Transport: telemetry.Transport(srv.Client().Transport)}

	ctx, span := recordingSpan(t)
	defer span.End()
	// A child started by Start uses the caller's provider: its id is what goes out.
	ctx, child := telemetry.Start(ctx, "GetTask", trace.SpanKindClient)
	defer child.End()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := <-got
	want := "00-" + child.SpanContext().TraceID().String() + "-" + child.SpanContext().SpanID().String() + "-01"
	if tp := h.Get("Traceparent"); tp != want {
		t.Errorf("traceparent %q, want %q", tp, want)
	}
	if req.Header.Get("Traceparent") != "" {
		t.Error("the transport changed the caller's request")
	}

	req, _ = http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if h := <-got; h.Get("Traceparent") != "" {
		t.Errorf("traceparent %q sent without a span", h.Get("Traceparent"))
	}
}

func TestGRPCDialOptionsInjectMetadata(t *testing.T) {
	clearEnv(t)
	if _, err := telemetry.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan metadata.MD, 1)
	gs := grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		got <- md
		return h(ctx, req)
	}))
	healthpb.RegisterHealthServer(gs, health.NewServer())
	go func() { _ = gs.Serve(lis) }()
	defer gs.Stop()
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(),
		append(telemetry.GRPCDialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, span := recordingSpan(t)
	defer span.End()
	if _, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatal(err)
	}
	md := <-got
	want := span.SpanContext().TraceID().String()
	if tp := md.Get("traceparent"); len(tp) != 1 || !strings.Contains(tp[0], want) {
		t.Errorf("traceparent metadata %v, want trace %s", tp, want)
	}
	sc := trace.SpanContextFromContext(telemetry.ExtractGRPC(context.Background(), md))
	if sc.TraceID() != span.SpanContext().TraceID() || sc.SpanID() != span.SpanContext().SpanID() {
		t.Errorf("extracted %v, want %v", sc, span.SpanContext())
	}
}

func TestLogHandlerAddsTraceIDs(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewJSONHandler(&buf, nil))).With("cmd", "probe")
	ctx, span := recordingSpan(t)
	log.InfoContext(ctx, "with span")
	log.InfoContext(context.Background(), "without span")
	span.End()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines: %q", lines)
	}
	var with, without map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &with)
	_ = json.Unmarshal([]byte(lines[1]), &without)
	if with["trace_id"] != span.SpanContext().TraceID().String() || with["span_id"] != span.SpanContext().SpanID().String() || with["cmd"] != "probe" {
		t.Errorf("line with span: %v", with)
	}
	if _, ok := without["trace_id"]; ok {
		t.Errorf("line without span has a trace_id: %v", without)
	}
}
