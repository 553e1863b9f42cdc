package probe

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
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
		if !r.Outcome.Reached() {
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

// startCall starts the client span of one prober call, named after the A2A method
// of its operation (GetTask, tasks/get, SubscribeToTask, ...).
func startCall(ctx context.Context, req request) (context.Context, trace.Span) {
	return telemetry.Start(ctx, jsonrpcMethods[req.op][req.version][0], trace.SpanKindClient)
}

// endCall records on a prober call's span what the wire showed (binding b, version,
// address, method, task id) and ends it; the caller records the outcome first.
func endCall(span trace.Span, req request, b a2a.TransportProtocol, a attempt) {
	defer span.End()
	if !span.IsRecording() {
		return
	}
	m := jsonrpcMethods[req.op][req.version]
	ev := a.ev
	ev.Binding, ev.Version = b, req.version
	span.SetAttributes(ev.Attributes()...)
	span.SetAttributes(telemetry.Server(req.ep.addr.Host, req.ep.addr.Port)...)
	span.SetAttributes(telemetry.A2AMethod.String(m[0]))
	if m[1] != "" {
		span.SetAttributes(telemetry.A2ATaskID.String(req.taskID))
	}
}

// endLookup ends the span of an interface lookup, with the probe's outcome.
func endLookup(span trace.Span, req request, a attempt) {
	if span.IsRecording() { // the evidence string is built only for a span that keeps it
		wire.RecordOutcome(span, a.outcome, a.describe())
	}
	endCall(span, req, a.binding, a)
}

// endCapabilityCall ends the span of capability k's call on an interface of binding b,
// with the capability and what the call showed about it. A capability not served is
// no error of the call (the card may not claim it): the check's findings judge that.
func endCapabilityCall(span trace.Span, req request, b a2a.TransportProtocol, a attempt, k Capability, call CapabilityCall) {
	if span.IsRecording() {
		span.SetAttributes(telemetry.Capability.String(string(k)), telemetry.CapabilityOutcome.String(string(call.Outcome)))
	}
	endCall(span, req, b, a)
}
