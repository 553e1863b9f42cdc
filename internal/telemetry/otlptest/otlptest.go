// Package otlptest is a real OTLP trace receiver on loopback for tests: it listens
// for OTLP/gRPC and OTLP/HTTP (protobuf) on 127.0.0.1, decodes every
// ExportTraceServiceRequest that arrives on the wire, and keeps the spans for the
// test to wait for and read, one trace at a time.
//
// Why not Jaeger all-in-one v1.75.0 as a Go tool: it does not build on a fresh machine
// in the 3 minutes the issue allows. Measured in a scratch module with an empty
// GOMODCACHE and GOCACHE on this project's kind of machine (2 cores, shared): `go get
// -tool github.com/jaegertracing/jaeger/cmd/jaeger@v1.75.0` alone took 112 s and
// filled a 1.3 GB module cache, and `go build` of the command was still compiling
// when stopped after another 300 s. `go get -tool` would also have put Jaeger's whole
// dependency graph into a2abind's go.mod (the scratch go.mod grew to 328 lines:
// the collector, Kafka, Elasticsearch and Cassandra clients, ...). This receiver is
// built on the OTLP collector service definitions (go.opentelemetry.io/proto/otlp,
// already in the graph through the OTLP exporters), so what the tests read is what
// a2abind put on the wire, decoded from OTLP/gRPC or OTLP/HTTP protobuf.
package otlptest

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// maxRequest bounds one OTLP/HTTP request body.
const maxRequest = 16 << 20

// Span is one span as it arrived, with its ids in W3C hex and its attributes as
// strings (an int attribute 8080 reads "8080").
type Span struct {
	TraceID, SpanID, ParentSpanID string
	Name                          string
	Kind                          tracepb.Span_SpanKind
	Attrs                         map[string]string
	Events                        []Event
	StatusCode                    tracepb.Status_StatusCode
	StatusMessage                 string
	// Service is the resource's service.name; Resource all its attributes; Scope the
	// instrumentation scope name.
	Service  string
	Resource map[string]string
	Scope    string
	// Protocol is how the span arrived: "grpc" or "http/protobuf".
	Protocol string
}

// Event is a span event.
type Event struct {
	Name  string
	Attrs map[string]string
}

// Receiver is a running OTLP receiver. Start it with Start; it stops at the end of
// the test.
type Receiver struct {
	// GRPCEndpoint is the OTLP/gRPC address as OTEL_EXPORTER_OTLP_ENDPOINT takes it
	// (http://127.0.0.1:port); HTTPEndpoint the OTLP/HTTP base URL.
	GRPCEndpoint, HTTPEndpoint string

	mu       sync.Mutex
	spans    []Span
	requests int
	changed  chan struct{} // closed and replaced on every export
}

// Start starts a receiver on loopback for both protocols, stopped when t ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{changed: make(chan struct{})}
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.MaxRecvMsgSize(maxRequest))
	coltracepb.RegisterTraceServiceServer(gs, grpcService{r: r})
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.serveHTTP)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = gs.Serve(gl) }()
	go func() { _ = hs.Serve(hl) }()
	r.GRPCEndpoint = "http://" + gl.Addr().String()
	r.HTTPEndpoint = "http://" + hl.Addr().String()
	t.Cleanup(func() {
		gs.Stop()
		_ = hs.Close()
	})
	return r
}

// Env sets the OTEL_* variables for the rest of t so that a2abind exports to r over
// protocol ("grpc" or "http/protobuf"), as a user would.
func (r *Receiver) Env(t testing.TB, protocol string) {
	t.Helper()
	endpoint := r.HTTPEndpoint
	if protocol == "grpc" {
		endpoint = r.GRPCEndpoint
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // export promptly in tests
}

type grpcService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s grpcService) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	s.r.add(req, "grpc")
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "want application/x-protobuf, got "+ct, http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxRequest))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(&msg, "http/protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// add decodes one export request.
func (r *Receiver) add(req *coltracepb.ExportTraceServiceRequest, protocol string) {
	var got []Span
	for _, rs := range req.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					Name: s.GetName(), Kind: s.GetKind(), Attrs: attrs(s.GetAttributes()),
					StatusCode: s.GetStatus().GetCode(), StatusMessage: s.GetStatus().GetMessage(),
					Service: res["service.name"], Resource: res, Scope: ss.GetScope().GetName(), Protocol: protocol,
				}
				if len(s.GetParentSpanId()) > 0 {
					sp.ParentSpanID = hex.EncodeToString(s.GetParentSpanId())
				}
				for _, e := range s.GetEvents() {
					sp.Events = append(sp.Events, Event{Name: e.GetName(), Attrs: attrs(e.GetAttributes())})
				}
				got = append(got, sp)
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spans = append(r.spans, got...)
	r.requests++
	close(r.changed)
	r.changed = make(chan struct{})
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		parts := make([]string, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, value(e))
		}
		return fmt.Sprint(parts)
	}
	return ""
}

// Spans returns every span received so far, in arrival order.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Requests is how many export requests arrived, in either protocol.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Trace returns the spans received so far whose trace id is traceID.
func (r *Receiver) Trace(traceID string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

// ErrTimeout is returned by Wait when the spans did not arrive in time.
var ErrTimeout = errors.New("otlptest: spans did not arrive in time")

// Wait waits until done holds for the spans received so far, at most timeout, and
// returns them (with ErrTimeout when they did not satisfy done in time).
func (r *Receiver) Wait(timeout time.Duration, done func([]Span) bool) ([]Span, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		r.mu.Lock()
		spans, changed := slices.Clone(r.spans), r.changed
		r.mu.Unlock()
		if done(spans) {
			return spans, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return spans, ErrTimeout
		}
	}
}

// WaitNamed waits, at most timeout, for a span named name and returns it.
func (r *Receiver) WaitNamed(timeout time.Duration, name string) (Span, error) {
	var found Span
	_, err := r.Wait(timeout, func(spans []Span) bool {
		for _, s := range spans {
			if s.Name == name {
				found = s
				return true
			}
		}
		return false
	})
	return found, err
}
