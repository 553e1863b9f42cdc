// Package telemetry is a2abind's one home for OpenTelemetry: the set-up from the
// standard OTEL_* variables (off unless asked), the bounded flush on exit, spans that
// cost nothing while tracing is off, W3C trace context propagation onto HTTP requests
// and gRPC calls, and a slog handler that stamps trace and span ids on log lines.
//
// Tracing is on only when OTEL_TRACES_EXPORTER names an exporter other than "none", or
// when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set: unlike
// the OpenTelemetry default, a2abind never sends to localhost:4318 unasked. The
// exporter itself is chosen as contrib's autoexport chooses it, from the same variables
// (OTEL_EXPORTER_OTLP_PROTOCOL grpc or http/protobuf), and the resource from
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// FlushTimeout bounds the flush of buffered spans when a command exits: a dead or
// slow collector delays the exit by at most this much.
const FlushTimeout = 2 * time.Second

// DefaultServiceName is the service.name of a2abind's spans unless OTEL_SERVICE_NAME
// or OTEL_RESOURCE_ATTRIBUTES names another.
const DefaultServiceName = "a2abind"

// The environment variables that switch tracing on (see Enabled).
const (
	EnvTracesExporter  = "OTEL_TRACES_EXPORTER"
	EnvEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvSDKDisabled     = "OTEL_SDK_DISABLED"
	exporterNone       = "none"
	propagatorsDefault = "tracecontext,baggage"
)

// Enabled reports whether the environment (read through getenv) asks for tracing:
// OTEL_TRACES_EXPORTER names an exporter other than "none", or it is unset and an
// OTLP endpoint variable is set. OTEL_SDK_DISABLED=true switches it off whatever else
// is set.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv(EnvSDKDisabled)), "true") {
		return false
	}
	switch exp := strings.TrimSpace(getenv(EnvTracesExporter)); {
	case strings.EqualFold(exp, exporterNone):
		return false
	case exp != "":
		return true
	}
	return strings.TrimSpace(getenv(EnvEndpoint)) != "" || strings.TrimSpace(getenv(EnvTracesEndpoint)) != ""
}

// Option configures Setup.
type Option func(*setupOptions)

type setupOptions struct {
	version string
	errors  io.Writer
}

// WithServiceVersion sets service.version on the resource. The default is none.
func WithServiceVersion(v string) Option { return func(o *setupOptions) { o.version = v } }

// WithErrorWriter sets where export errors are reported, one line each. The default
// is os.Stderr.
func WithErrorWriter(w io.Writer) Option { return func(o *setupOptions) { o.errors = w } }

// Provider is the tracing set up by Setup. Its zero value (tracing off) is valid.
type Provider struct {
	tp     *sdktrace.TracerProvider
	errors *lockedWriter
}

// Enabled reports whether spans are exported.
func (p *Provider) Enabled() bool { return p != nil && p.tp != nil }

// Setup installs the W3C tracecontext and baggage propagator and, when the
// environment asks for tracing (Enabled), a tracer provider exporting through the
// exporter newSpanExporter chooses from OTEL_*, as the global provider. When tracing is off
// it starts nothing and changes no provider. The caller calls Shutdown when done.
func Setup(ctx context.Context, opts ...Option) (*Provider, error) {
	o := setupOptions{errors: os.Stderr}
	for _, opt := range opts {
		opt(&o)
	}
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if !Enabled(os.Getenv) {
		return &Provider{}, nil
	}
	exp, err := newSpanExporter(ctx)
	if err != nil {
		return &Provider{}, fmt.Errorf("telemetry: %w (%s takes otlp, console or none; OTEL_EXPORTER_OTLP_PROTOCOL grpc or http/protobuf)", err, EnvTracesExporter)
	}
	if exp == nil {
		return &Provider{}, nil
	}
	res, err := newResource(ctx, o.version)
	if err != nil {
		// A malformed OTEL_RESOURCE_ATTRIBUTES keeps what could be read.
		fmt.Fprintf(o.errors, "a2abind: telemetry: %v\n", err)
	}
	w := &lockedWriter{w: o.errors}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { w.printf("a2abind: telemetry: %v\n", err) }))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	return &Provider{tp: tp, errors: w}, nil
}

// newSpanExporter is the exporter OTEL_TRACES_EXPORTER names, chosen exactly as
// contrib's autoexport.NewSpanExporter chooses it (otlp when unset, console, none: nil;
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, then OTEL_EXPORTER_OTLP_PROTOCOL, grpc or
// http/protobuf, the default) without linking autoexport's log and metric exporters,
// whose package initialisation every command would pay.
func newSpanExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	switch os.Getenv(EnvTracesExporter) {
	case "", "otlp":
	case "console":
		return stdouttrace.New()
	case exporterNone:
		return nil, nil
	default:
		return nil, errors.New("unknown exporter or metrics producer")
	}
	switch cmp.Or(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "http/protobuf") {
	case "grpc":
		return otlptracegrpc.New(ctx)
	case "http/protobuf":
		return otlptracehttp.New(ctx)
	}
	return nil, errors.New("invalid OTLP protocol - should be one of ['grpc', 'http/protobuf']")
}

// newResource is a2abind's service name and version, then what OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES say (later detectors win). On a malformed variable it keeps
// what could be read and returns the error too.
func newResource(ctx context.Context, version string) (*resource.Resource, error) {
	own := []attribute.KeyValue{semconv.ServiceName(DefaultServiceName)}
	if version != "" {
		own = append(own, semconv.ServiceVersion(version))
	}
	res, err := resource.New(ctx, resource.WithAttributes(own...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if res == nil {
		res = resource.NewSchemaless(own...)
	}
	return res, err
}

// Shutdown flushes the spans still buffered and stops the exporter, waiting at most
// FlushTimeout (or less, when ctx ends first): a dead collector never holds the exit.
func (p *Provider) Shutdown(ctx context.Context) error {
	if !p.Enabled() {
		return nil
	}
	if otel.GetTracerProvider() == p.tp {
		otel.SetTracerProvider(unset) // spans started after this cost nothing again
	}
	ctx, cancel := context.WithTimeout(ctx, FlushTimeout)
	defer cancel()
	defer p.errors.close() // an export still failing after the bound writes nowhere
	done := make(chan error, 1)
	go func() { done <- p.tp.Shutdown(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// An exporter that ignores its context must not hold the exit either.
		return fmt.Errorf("telemetry: spans not flushed within %s: %w", FlushTimeout, ctx.Err())
	}
}

// lockedWriter writes export errors until it is closed.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w != nil {
		fmt.Fprintf(l.w, format, args...)
	}
}

func (l *lockedWriter) close() {
	l.mu.Lock()
	l.w = nil
	l.mu.Unlock()
}
