package telemetry

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"google.golang.org/grpc"
)

// Handler wraps an HTTP handler with otelhttp: each request gets a server span that
// continues the trace its traceparent names, under the global tracer provider and
// propagator. operation names the spans' default.
func Handler(h http.Handler, operation string) http.Handler {
	return otelhttp.NewHandler(h, operation)
}

// GRPCServerOption is the grpc.Server option that gives each call a server span
// continuing the trace in its metadata (otelgrpc).
func GRPCServerOption() grpc.ServerOption {
	return grpc.StatsHandler(otelgrpc.NewServerHandler())
}
