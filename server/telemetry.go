package server

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry"
)

// OpenTelemetry (docs/telemetry.md), under the global tracer provider and propagator:
// the HTTP listener's requests get server spans from otelhttp and the own gRPC
// server's calls from otelgrpc, both continuing the trace a client sends (W3C
// traceparent); Start's self-check is a span whose probes are its children. With
// WithMounted, Handler's requests get their spans too; a gRPC server of one's own takes
// otelgrpc's handler itself (telemetry.GRPCServerOption in a2abind's CLI).

// tracedHTTP gives every request to h a server span that continues the client's trace,
// except gRPC calls served on the HTTP port (WithGRPCOnHTTP), which get otelgrpc's.
func (srv *Server) tracedHTTP(h http.Handler) http.Handler {
	traced := telemetry.Handler(h, "a2abind.server")
	if !srv.o.grpcOnHTTP {
		return traced // no gRPC on this port: nothing to tell apart per request
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && card.IsGRPCRequest(r) {
			h.ServeHTTP(w, r)
			return
		}
		traced.ServeHTTP(w, r)
	})
}

// SpanSelfCheck is the span of the publish-time self-check (docs/telemetry.md).
const SpanSelfCheck = "a2abind.serve.self_check"

// startSelfCheckSpan starts the span of the publish-time self-check.
func (srv *Server) startSelfCheckSpan(ctx context.Context) (context.Context, trace.Span) {
	ctx, span := telemetry.Start(ctx, SpanSelfCheck, trace.SpanKindInternal)
	if span.IsRecording() {
		span.SetAttributes(telemetry.Interfaces.Int(len(srv.card.Interfaces)))
	}
	return ctx, span
}

// endSelfCheckSpan ends it with the number of rounds and whether the card was published.
func endSelfCheckSpan(span trace.Span, rounds int, err error) {
	if span.IsRecording() {
		span.SetAttributes(telemetry.Rounds.Int(rounds), telemetry.Published.Bool(err == nil))
		if err != nil {
			telemetry.Fail(span, "self_check_failed", err.Error())
		}
	}
	span.End()
}
