package delegate

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/wire"
)

// OpenTelemetry spans of a call (docs/telemetry.md): a span per call (SpanCall, a
// child of the caller's span), a client span per attempt named after
// the A2A method with its interface and outcome, a "fallback" event on the call span
// each time the walk moves on (the interface left, the next one, the evidence), and a
// "GetTask" span per confirming lookup under the attempt it confirms. The attempt's
// span context travels to the agent as W3C traceparent (HTTP header, gRPC metadata).

// Span and event names (docs/telemetry.md).
const (
	// SpanCall is the span of one call, whatever its operation (a2a.method.name says
	// which); its attempts are client spans named after the A2A method.
	SpanCall = "a2abind.delegate"
	// EventFallback is the event a call's span records each time the call moves on to
	// the next interface.
	EventFallback = "fallback"
)

// WithTracerProvider sets where the client's spans go. nil, or no option, means the
// provider of the caller's span in the call's context when it is recording, else the
// global provider (otel.GetTracerProvider) at the time of each call, a no-op until the
// program sets one. The span context reaches the agent through the global propagator
// (otel.GetTextMapPropagator).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracerProvider = tp }
}

// callSpan is the span of one call and of its attempt in progress.
type callSpan struct {
	c        *Client
	span     trace.Span
	op       string
	attempts int
	outcome  wire.Outcome // of the last attempt decided

	att    trace.Span      // the attempt in progress, nil between attempts
	attCtx context.Context // its context
	detail string          // its failure's detail, once known
	ev     wire.Evidence   // its failure's evidence, once known

	left    *card.Interface // the interface the walk moved on from, for the next attempt's event
	leftOut wire.Outcome
	leftWhy string
}

// startCall starts the span of a call to op, a child of ctx's span (its attempts are
// children of it, in its provider).
func (c *Client) startCall(ctx context.Context, op string) (context.Context, *callSpan) {
	s := &callSpan{c: c, op: op}
	if tp := c.opts.tracerProvider; tp != nil {
		ctx, s.span = tp.Tracer(telemetry.ScopeName).Start(ctx, SpanCall)
	} else {
		ctx, s.span = telemetry.Start(ctx, SpanCall, trace.SpanKindInternal)
	}
	if s.span.IsRecording() {
		s.span.SetAttributes(telemetry.A2AMethod.String(op))
	}
	return ctx, s
}

// attempt starts the span of an attempt on iface, recording the fallback that led to
// it, and returns its context.
func (s *callSpan) attempt(ctx context.Context, iface card.Interface) context.Context {
	if s.left != nil {
		s.span.AddEvent(EventFallback, trace.WithAttributes(
			telemetry.FallbackFrom.String(s.left.String()), telemetry.FallbackTo.String(iface.String()),
			telemetry.Outcome.String(string(s.leftOut)), telemetry.Evidence.String(s.leftWhy)))
		s.left = nil
	}
	s.attempts++
	s.detail, s.ev = "", wire.Evidence{}
	s.attCtx, s.att = telemetry.Start(ctx, s.op, trace.SpanKindClient)
	if s.att.IsRecording() {
		s.att.SetAttributes(append(s.c.interfaceAttributes(iface), telemetry.A2AMethod.String(s.op))...)
	}
	return s.attCtx
}

// attemptContext is the context of the attempt in progress (the call's between
// attempts), for the lookup that confirms it.
func (s *callSpan) attemptContext(ctx context.Context) context.Context {
	if s.att == nil {
		return ctx
	}
	return s.attCtx
}

// failed notes the failure of the attempt in progress.
func (s *callSpan) failed(detail string, ev wire.Evidence) { s.detail, s.ev = detail, ev }

// answered records what the agent's answer says about its task (a2a.task.id,
// a2a.task.state), on the attempt and on the call.
func (s *callSpan) answered(v any) {
	if s.att == nil || !s.att.IsRecording() {
		return
	}
	if attrs := telemetry.Task(v); len(attrs) > 0 {
		s.att.SetAttributes(attrs...)
		s.span.SetAttributes(attrs...)
	}
}

// decided ends the span of the attempt in progress with the walk's verdict; detail,
// when not empty, replaces the failure's (it carries the policy's reason).
func (s *callSpan) decided(iface card.Interface, t wire.Tried, step wire.Step, detail string) {
	if s.att == nil {
		return
	}
	sp := s.att
	s.att = nil
	if detail == "" {
		detail = s.detail
	}
	if t.Outcome != "" {
		s.outcome = t.Outcome
	}
	if step.Next && !t.Final && s.span.IsRecording() { // the fallback event, built only when recorded
		left := iface // a copy: &iface would move every attempt's interface to the heap
		s.left, s.leftOut, s.leftWhy = &left, t.Outcome, detail
	}
	endExchange(sp, t.Outcome, s.ev, detail)
}

// end ends the call's span with its result.
func (s *callSpan) end(err error) {
	if s.att != nil { // an attempt the walk did not decide (a consumer of the stream panicked)
		s.decided(card.Interface{}, wire.Tried{Outcome: s.outcome, Final: true}, wire.Step{}, "")
	}
	s.span.SetAttributes(telemetry.Attempts.Int(s.attempts))
	if s.outcome != "" {
		s.span.SetAttributes(telemetry.Outcome.String(string(s.outcome)))
	}
	if err != nil {
		telemetry.Fail(s.span, errorType(err), firstLine(err.Error()))
	}
	s.span.End()
}

// startLookup starts the span of a confirming lookup, a child of the attempt it confirms.
func (c *Client) startLookup(ctx context.Context, iface card.Interface) (context.Context, trace.Span) {
	ctx, sp := telemetry.Start(ctx, "GetTask", trace.SpanKindClient)
	if sp.IsRecording() {
		sp.SetAttributes(append(c.interfaceAttributes(iface), telemetry.A2AMethod.String("GetTask"), telemetry.Purpose.String("confirm"))...)
	}
	return ctx, sp
}

// endExchange ends the span of an attempt or lookup with its outcome and what the
// answer carried (wire's reading of the evidence); error.type, with the detail as the
// error status, when no A2A server answered.
func endExchange(sp trace.Span, o wire.Outcome, ev wire.Evidence, detail string) {
	if sp.IsRecording() {
		sp.SetAttributes(ev.Attributes()...)
		wire.RecordOutcome(sp, o, detail)
	}
	sp.End()
}

// interfaceAttributes are the attributes naming an interface: its binding and version,
// the RPC system, and the server's address and port.
func (c *Client) interfaceAttributes(iface card.Interface) []attribute.KeyValue {
	kv := wire.Evidence{Binding: iface.Binding, Version: iface.ProtocolVersion}.Attributes()
	if a, ok := c.addrs[iface.Key()]; ok {
		kv = append(kv, telemetry.Server(a.Host, a.Port)...)
	}
	return kv
}

// errorKinds name a call's failure for error.type, by its sentinel.
var errorKinds = []struct {
	err  error
	name string
}{
	{ErrExhausted, "exhausted"},
	{ErrAuth, "auth_refused"},
	{ErrAgent, "agent_error"},
	{ErrAmbiguous, "ambiguous"},
	{ErrStreamBroken, "stream_broken"},
	{ErrNoCandidates, "no_candidates"},
	{ErrClosed, "closed"},
}

// errorType is error.type of a failed call: its sentinel's name, else "_OTHER".
func errorType(err error) string {
	var de *Error
	if errors.As(err, &de) {
		err = de.Kind
	}
	for _, k := range errorKinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "_OTHER"
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
