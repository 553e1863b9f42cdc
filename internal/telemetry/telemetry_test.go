package telemetry_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
)

// clearEnv unsets every variable that could switch tracing on, for the rest of t.
func clearEnv(t *testing.T) {
	for _, k := range []string{telemetry.EnvTracesExporter, telemetry.EnvEndpoint, telemetry.EnvTracesEndpoint,
		telemetry.EnvSDKDisabled, "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
		"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing set", nil, false},
		{"protocol alone", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false},
		{"service name alone", map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{"exporter console", map[string]string{"OTEL_TRACES_EXPORTER": "console"}, true},
		{"exporter none", map[string]string{"OTEL_TRACES_EXPORTER": "none"}, false},
		{"exporter NONE", map[string]string{"OTEL_TRACES_EXPORTER": " NONE "}, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{"blank endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, false},
		{"none beats endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, false},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := telemetry.Enabled(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("Enabled(%v) = %v, want %v", tc.env, got, tc.want)
			}
		})
	}
}

// TestOffStartsNothing: with no variable set, Setup leaves the global provider alone,
// starts no goroutine, and nothing reaches localhost:4318 (the OpenTelemetry default
// endpoint) when the port is free to watch.
func TestOffStartsNothing(t *testing.T) {
	clearEnv(t)
	watch, err := net.Listen("tcp", "127.0.0.1:4318")
	if err != nil {
		t.Logf("127.0.0.1:4318 is taken (%v): not watching it", err)
	} else {
		defer watch.Close()
	}
	// The goroutines running now (an earlier test's may still be ending, so a bare
	// count can fall as well as rise): any other one alive after Setup, Setup started.
	before := goleak.IgnoreCurrent()
	p, err := telemetry.Setup(context.Background())
	if err != nil || p.Enabled() {
		t.Fatalf("Setup() = enabled %v, %v; want off", p.Enabled(), err)
	}
	if err := goleak.Find(before); err != nil {
		t.Errorf("Setup started goroutines with tracing off: %v", err)
	}
	ctx, span := telemetry.Start(context.Background(), "off", trace.SpanKindClient)
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Errorf("a span started with tracing off records: %v", span.SpanContext())
	}
	span.End()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if watch != nil {
		_ = watch.(*net.TCPListener).SetDeadline(time.Now().Add(200 * time.Millisecond))
		if c, err := watch.Accept(); err == nil {
			c.Close()
			t.Fatal("something connected to 127.0.0.1:4318 with tracing off")
		}
	}
}

// TestNoneSendsNothing: OTEL_TRACES_EXPORTER=none wins over an endpoint: nothing arrives.
func TestNoneSendsNothing(t *testing.T) {
	clearEnv(t)
	rcv := otlptest.Start(t)
	rcv.Env(t, "http/protobuf")
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	p, err := telemetry.Setup(context.Background())
	if err != nil || p.Enabled() {
		t.Fatalf("Setup() = enabled %v, %v; want off", p.Enabled(), err)
	}
	_, span := telemetry.Start(context.Background(), "none", trace.SpanKindInternal)
	span.End()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := rcv.Requests(); n != 0 {
		t.Errorf("%d export requests arrived with OTEL_TRACES_EXPORTER=none", n)
	}
}

// TestExportsOverBothProtocols sends a span through autoexport over OTLP/gRPC and
// OTLP/HTTP to a real receiver, with the resource the variables name.
func TestExportsOverBothProtocols(t *testing.T) {
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(protocol, func(t *testing.T) {
			clearEnv(t)
			rcv := otlptest.Start(t)
			rcv.Env(t, protocol)
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=test,service.name=overridden")
			t.Setenv("OTEL_SERVICE_NAME", "probe-fleet")
			p, err := telemetry.Setup(context.Background(), telemetry.WithServiceVersion("9.9.9"))
			if err != nil || !p.Enabled() {
				t.Fatalf("Setup() = enabled %v, %v; want on", p.Enabled(), err)
			}
			ctx, parent := telemetry.Start(context.Background(), "parent", trace.SpanKindInternal)
			_, child := telemetry.Start(ctx, "child", trace.SpanKindClient)
			child.SetAttributes(telemetry.Outcome.String("served"), telemetry.ServerPort.Int(8443))
			child.End()
			parent.End()
			if err := p.Shutdown(context.Background()); err != nil { // the flush sends them
				t.Fatal(err)
			}
			spans := rcv.Spans()
			if len(spans) != 2 {
				t.Fatalf("received %d spans, want 2: %+v", len(spans), spans)
			}
			c, pa := spans[0], spans[1]
			if c.Name != "child" || pa.Name != "parent" || c.TraceID != pa.TraceID || c.ParentSpanID != pa.SpanID {
				t.Errorf("spans not joined: %+v", spans)
			}
			if c.Protocol != protocol || c.Kind.String() != "SPAN_KIND_CLIENT" {
				t.Errorf("protocol %q kind %v", c.Protocol, c.Kind)
			}
			if c.Attrs["a2abind.outcome"] != "served" || c.Attrs["server.port"] != "8443" {
				t.Errorf("attributes: %v", c.Attrs)
			}
			if c.Service != "probe-fleet" || c.Resource["deployment.environment.name"] != "test" ||
				c.Resource["service.version"] != "9.9.9" || c.Scope != telemetry.ScopeName {
				t.Errorf("resource %v, scope %q", c.Resource, c.Scope)
			}
			if otel.GetTracerProvider() == nil {
				t.Fatal("no global provider")
			}
			_, after := telemetry.Start(context.Background(), "after", trace.SpanKindInternal)
			if after.IsRecording() {
				t.Error("a span started after Shutdown records: the global provider was not reset")
			}
		})
	}
}

// TestFlushIsBoundedWhenTheCollectorIsDead: a collector that accepts connections and
// never answers, or refuses them, does not hold Shutdown beyond FlushTimeout.
func TestFlushIsBoundedWhenTheCollectorIsDead(t *testing.T) {
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close()
	go func() { // accept and hold every connection, answering nothing
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedAddr := refused.Addr().String()
	refused.Close()
	for _, tc := range []struct{ name, endpoint, protocol string }{
		{"silent grpc", "http://" + hole.Addr().String(), "grpc"},
		{"silent http", "http://" + hole.Addr().String(), "http/protobuf"},
		{"refused grpc", "http://" + refusedAddr, "grpc"},
		{"refused http", "http://" + refusedAddr, "http/protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", tc.endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", tc.protocol)
			var errs strings.Builder
			p, err := telemetry.Setup(context.Background(), telemetry.WithErrorWriter(&errs))
			if err != nil || !p.Enabled() {
				t.Fatalf("Setup() = enabled %v, %v", p.Enabled(), err)
			}
			_, span := telemetry.Start(context.Background(), "lost", trace.SpanKindInternal)
			span.End()
			done := make(chan error, 1)
			go func() { done <- p.Shutdown(context.Background()) }()
			select {
			case err := <-done:
				if err == nil && errs.Len() == 0 {
					t.Error("nothing could be exported, and neither Shutdown nor the error writer said so")
				}
				t.Logf("Shutdown: %v; reported: %s", err, errs.String())
			case <-time.After(telemetry.FlushTimeout + 8*time.Second): // a hang, not a speed limit
				t.Fatal("Shutdown did not return: the flush is not bounded")
			}
		})
	}
}

// TestStartCostsNothingWhenOff: the span helpers and the propagation allocate nothing
// while tracing is off; BenchmarkStartOff shows the time.
func TestStartCostsNothingWhenOff(t *testing.T) {
	clearEnv(t)
	ctx := context.Background()
	h := http.Header{}
	allocs := testing.AllocsPerRun(1000, func() {
		c, span := telemetry.Start(ctx, "GetTask", trace.SpanKindClient)
		if span.IsRecording() {
			span.SetAttributes(telemetry.Outcome.String("served"))
		}
		telemetry.Fail(span, "refused", "refused")
		telemetry.InjectHTTP(c, h)
		span.End()
	})
	if allocs != 0 {
		t.Errorf("Start with tracing off allocates %v times per span, want 0", allocs)
	}
}

// TestTransportCostsNothingWhenOff: a request with no trace context to carry goes
// through Transport without an allocation.
func TestTransportCostsNothingWhenOff(t *testing.T) {
	clearEnv(t)
	rt := telemetry.Transport(roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, nil }))
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	allocs := testing.AllocsPerRun(1000, func() { _, _ = rt.RoundTrip(req) })
	if allocs != 0 {
		t.Errorf("Transport with tracing off allocates %v times per request, want 0", allocs)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// BenchmarkStartOff is the cost of a span and the header injection of one request
// while tracing is off.
func BenchmarkStartOff(b *testing.B) {
	ctx := context.Background()
	h := http.Header{}
	b.ReportAllocs()
	for b.Loop() {
		c, span := telemetry.Start(ctx, "GetTask", trace.SpanKindClient)
		telemetry.InjectHTTP(c, h)
		span.End()
	}
}
