package telemetry

import (
	"context"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"google.golang.org/grpc"
)

// off reports that tracing is off: no tracer provider was set, or the last one was shut
// down.
func off() bool { return otel.GetTracerProvider() == unset }

// Handler wraps an HTTP handler with otelhttp: each request gets a server span that
// continues the trace its traceparent names, under the global tracer provider and
// propagator. operation names the spans' default. While tracing is off a request goes
// straight to h (otelhttp's no-op path still costs about 30 allocations a request), its
// headers as they came. otelhttp would take client.address from X-Forwarded-For, which
// any client writes: it sees the request without that header, so client.address is the
// peer that connected; h gets the header back.
func Handler(h http.Handler, operation string) http.Handler {
	traced := otelhttp.NewHandler(forwardedBack(h), operation)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if off() {
			h.ServeHTTP(w, r)
			return
		}
		if xff, ok := r.Header[forwardedFor]; ok {
			r = r.WithContext(context.WithValue(r.Context(), forwardedKey{}, xff))
			r.Header = r.Header.Clone() // r is a copy: the caller's request keeps its header
			delete(r.Header, forwardedFor)
		}
		traced.ServeHTTP(w, r)
	})
}

const forwardedFor = "X-Forwarded-For"

type forwardedKey struct{}

// forwardedBack puts back on the request the X-Forwarded-For Handler kept from otelhttp.
func forwardedBack(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if xff, ok := r.Context().Value(forwardedKey{}).([]string); ok {
			r.Header[forwardedFor] = xff // the header Handler cloned
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
