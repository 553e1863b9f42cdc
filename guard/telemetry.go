package guard

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/internal/telemetry"
)

// OpenTelemetry (docs/telemetry.md), under the global tracer provider and propagator:
// every request to the guard gets a server span from otelhttp that continues the
// client's trace, and a proxied request carries that span's context on to the upstream
// (W3C traceparent), so the upstream's own spans join the client's trace. Each round
// (card fetch, probes, decision) is a trace of its own: rounds run on a
// context of their own, never a client's (SpanRound).

// SpanRound is the span of one round, the root of a trace of its own (docs/telemetry.md).
const SpanRound = "a2abind.guard.round"

// startRound starts the span of a round.
func startRound(ctx context.Context) (context.Context, trace.Span) {
	return telemetry.Start(ctx, SpanRound, trace.SpanKindInternal)
}

// endRound ends a round's span with what the round decided.
func endRound(span trace.Span, s *snapshot) {
	if span.IsRecording() {
		span.SetAttributes(telemetry.Round.Int(s.Round), telemetry.Published.Bool(s.Published),
			telemetry.Interfaces.Int(len(s.Results)))
		if !s.Published {
			telemetry.Fail(span, "withheld", s.Reason)
		}
	}
	span.End()
}
