package probe

import (
	"context"

	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/wire"
)

// The names of probe's spans (docs/telemetry.md). A lookup's span is named after its
// A2A method (GetTask, or tasks/get for A2A 0.3), as the OpenTelemetry A2A proposal
// names client spans.
const (
	// SpanTarget is the span of one target's check: card fetch and every interface.
	SpanTarget = "a2abind.probe"
	// SpanInterface is the span of one declared interface's probe, with its outcome.
	SpanInterface = "a2abind.probe.interface"
)

// TargetSpan is the span of one target's check, started by StartTarget.
type TargetSpan struct{ span trace.Span }

// StartTarget starts the span of a check of target: a root span, unless ctx already
// carries one. The card fetch and the interface probes run under the returned context
// become its children, and the requests they send carry its trace. While tracing is
// off it costs nothing.
func StartTarget(ctx context.Context, target string) (context.Context, TargetSpan) {
	ctx, span := telemetry.Start(ctx, SpanTarget, trace.SpanKindInternal)
	if span.IsRecording() {
		span.SetAttributes(telemetry.Target.String(target))
	}
	return ctx, TargetSpan{span}
}

// End records what the check found (the card's location and size, how many
// interfaces are not served, or why the card was not obtained) and ends the span.
func (t TargetSpan) End(c *card.Card, results []Result, err error) {
	defer t.span.End()
	if !t.span.IsRecording() {
		return
	}
	if err != nil {
		telemetry.Fail(t.span, "card_unavailable", err.Error())
		return
	}
	if c != nil {
		t.span.SetAttributes(telemetry.CardURL.String(c.Location), telemetry.Interfaces.Int(len(c.Interfaces)))
	}
	failed := 0
	for _, r := range results {
		if !reached(r.Outcome) {
			failed++
		}
	}
	t.span.SetAttributes(telemetry.NotServed.Int(failed), telemetry.OK.Bool(failed == 0))
	if failed > 0 {
		telemetry.Fail(t.span, "interface_not_served", "interfaces not served")
	}
}

// traced probes the interface in a span of its own that records the declared
// interface and the outcome.
func (r *run) traced(ctx context.Context) Result {
	ctx, span := telemetry.Start(ctx, SpanInterface, trace.SpanKindInternal)
	defer span.End()
	res := r.run(ctx)
	if span.IsRecording() {
		span.SetAttributes(telemetry.InterfaceURL.String(r.iface.URL), telemetry.Binding.String(string(r.iface.Binding)),
			telemetry.ProtocolVersion.String(r.iface.ProtocolVersion))
		if res.ActualBinding != "" {
			span.SetAttributes(telemetry.ActualBinding.String(string(res.ActualBinding)))
		}
		wire.RecordOutcome(span, res.Outcome, res.Detail)
	}
	return res
}

// startLookup starts the client span of one lookup, named after its A2A method.
func startLookup(ctx context.Context, version string) (context.Context, trace.Span) {
	return telemetry.Start(ctx, jsonrpcMethods[version], trace.SpanKindClient)
}

// endLookup records on the lookup's span what the wire showed and the outcome, and
// ends it.
func endLookup(span trace.Span, ep endpoint, taskID string, a attempt) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	method := jsonrpcMethods[a.version]
	ev := a.ev
	ev.Binding, ev.Version = a.binding, a.version
	span.SetAttributes(ev.Attributes()...)
	span.SetAttributes(telemetry.Server(ep.addr.Host, ep.addr.Port)...)
	span.SetAttributes(telemetry.A2AMethod.String(method), telemetry.A2ATaskID.String(taskID))
	wire.RecordOutcome(span, a.outcome, a.describe())
}
