package telemetry

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/internal/redact"
)

// ScopeName is the instrumentation scope of a2abind's spans.
const ScopeName = "github.com/a2abind/a2abind"

// unset is the global tracer provider before anyone sets one: while it is still the
// global provider and the context carries no recording span, Start allocates nothing.
var unset = otel.GetTracerProvider()

// Start starts a span named name as a child of the span in ctx. It uses the tracer
// provider of that span when it is recording (a library caller's own provider), else
// the global one. While tracing is off (no provider set, no recording parent) it
// returns ctx unchanged and a non-recording span, with no allocation: callers guard
// attribute building with span.IsRecording(). A recording span hides the secrets ctx
// carries (redact.NewContext) and the credentials of the URLs it records.
func Start(ctx context.Context, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	tp := otel.GetTracerProvider()
	if parent.IsRecording() {
		tp = parent.TracerProvider()
	} else if tp == unset {
		return ctx, parent
	}
	ctx, span := tp.Tracer(ScopeName).Start(ctx, name, trace.WithSpanKind(kind))
	if !span.IsRecording() {
		return ctx, span
	}
	return ctx, redacted{span, redact.FromContext(ctx)}
}

// Fail marks span as failed with errType (the error.type attribute) and the message.
func Fail(span trace.Span, errType, message string) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(ErrorType.String(errType))
	span.SetStatus(codes.Error, message)
}
