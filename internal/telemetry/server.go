package telemetry

import (
	"net"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
)

// off reports that tracing is off: no tracer provider was set, or the last one was shut
// down.
func off() bool { return otel.GetTracerProvider() == unset }

// Handler wraps an HTTP handler with otelhttp: each request gets a server span that
// continues the trace its traceparent names, under the global tracer provider and
// propagator. operation names the spans' default. While tracing is off a request goes
// straight to h (otelhttp's no-op path still costs about 30 allocations a request), its
// headers as they came. The span's client.address is the connection's peer: otelhttp
// would take X-Forwarded-For, which any client writes.
func Handler(h http.Handler, operation string) http.Handler {
	traced := otelhttp.NewHandler(peerClient(h), operation)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if off() {
			h.ServeHTTP(w, r)
			return
		}
		traced.ServeHTTP(w, r)
	})
}

// peerClient sets client.address on the request's server span to the peer of
// r.RemoteAddr, over the X-Forwarded-For value otelhttp put there.
func peerClient(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Header["X-Forwarded-For"]; ok {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				host = r.RemoteAddr
			}
			trace.SpanFromContext(r.Context()).SetAttributes(semconv.ClientAddress(host))
		}
		h.ServeHTTP(w, r)
	})
}

// GRPCServerOption is the grpc.Server option that gives each call a server span
// continuing the trace in its metadata (otelgrpc). While tracing is off as the server is
// built it is an empty option: a stats handler costs grpc-go work on every call even when
// it records nothing, so set the tracer provider up before building the server.
func GRPCServerOption() grpc.ServerOption {
	if off() {
		return grpc.EmptyServerOption{}
	}
	return grpc.StatsHandler(otelgrpc.NewServerHandler())
}
