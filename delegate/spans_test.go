package delegate

import (
	"context"
	"slices"
	"testing"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// tracedProvider is a caller's own tracer provider (not the global one) exporting
// synchronously over OTLP/gRPC to a real receiver on loopback (otlptest: why not
// Jaeger is in its doc), with the W3C propagator installed globally for the test (what
// telemetry.Setup does).
func tracedProvider(t *testing.T) (*sdktrace.TracerProvider, *otlptest.Receiver) {
	t.Helper()
	rcv := otlptest.Start(t)
	rcv.Env(t, "grpc")
	exp, err := autoexport.NewSpanExporter(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() {
		otel.SetTextMapPropagator(prev)
		_ = tp.Shutdown(context.Background())
	})
	return tp, rcv
}

// TestSpansOfAConfirmedFallback: a library caller's span and provider
// (WithTracerProvider) hold the whole call. The card declares JSON-RPC first at a path
// where nothing is mounted: the 404 a handler could also give is confirmed by a
// GetTask lookup (its own span, under the attempt it confirms), and the next interface's
// GetTask lookup is answered by a handler (its span under the same attempt) before the
// message moves on, with a fallback event naming both interfaces; the agent receives every
// request (card fetch, attempt, lookup, attempt) with the caller's trace id, the
// attempts' and the lookup's under their own spans. A stream is traced alike, its
// attempt span covering the stream it read.
func TestSpansOfAConfirmedFallback(t *testing.T) {
	for _, op := range []string{"SendMessage", "SendStreamingMessage"} {
		t.Run(op, func(t *testing.T) { testSpansOfAConfirmedFallback(t, op) })
	}
}

func testSpansOfAConfirmedFallback(t *testing.T, op string) {
	tp, rcv := tracedProvider(t)
	rec := &otlptest.Recorder{}
	agent := labtest.Start(t, append([]lab.Option{
		lab.WithJSONRPC(card.V1, "/a2a"),
		lab.WithCard(func(a *lab.Agent) any {
			return lab.V1Card("confirm", lab.Decl{URL: a.URL("/gone"), Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: a.URL("/a2a"), Binding: lab.JSONRPC, Version: card.V1})
		}),
	}, recording(rec)...)...)

	ctx, caller := tp.Tracer("caller").Start(testContext(t), "caller")
	c := newTestClient(t, ctx, agent.BaseURL, WithTracerProvider(tp))
	if op == "SendMessage" {
		if _, err := c.SendMessage(ctx, userMessage("confirm me")); err != nil {
			t.Fatal(err)
		}
	} else {
		for _, err := range c.SendStreamingMessage(ctx, userMessage("confirm me")) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	caller.End()
	traceID := caller.SpanContext().TraceID().String()
	tr := rcv.Trace(traceID)
	byID := map[string]otlptest.Span{}
	for _, s := range tr {
		byID[s.SpanID] = s
	}
	call := oneSpan(t, tr, func(s otlptest.Span) bool { return s.Name == SpanCall })
	if call.ParentSpanID != caller.SpanContext().SpanID().String() || call.Attrs["a2a.method.name"] != op {
		t.Errorf("call span's parent %s, method %q: want the caller's span, %s", call.ParentSpanID, call.Attrs["a2a.method.name"], op)
	}
	gone := oneSpan(t, tr, func(s otlptest.Span) bool {
		return s.Name == op && s.ParentSpanID == call.SpanID && s.Attrs["a2abind.outcome"] == "not_found"
	})
	served := oneSpan(t, tr, func(s otlptest.Span) bool {
		return s.Name == op && s.ParentSpanID == call.SpanID && s.Attrs["a2abind.outcome"] == "served"
	})
	lookup := oneSpan(t, tr, func(s otlptest.Span) bool {
		return s.Name == "GetTask" && s.ParentSpanID == gone.SpanID && s.Attrs["a2abind.outcome"] == "not_found"
	})
	if lookup.Attrs["a2abind.purpose"] != "confirm" || lookup.Attrs["http.response.status_code"] != "404" {
		t.Errorf("lookup attributes %v", lookup.Attrs)
	}
	// The lookup on the next interface, which a handler answers (issue 43).
	ahead := oneSpan(t, tr, func(s otlptest.Span) bool {
		return s.Name == "GetTask" && s.ParentSpanID == gone.SpanID && s.Attrs["a2abind.outcome"] == "served"
	})
	if ahead.Attrs["a2abind.purpose"] != "confirm" {
		t.Errorf("lookup ahead attributes %v", ahead.Attrs)
	}
	if served.Attrs["a2a.task.state"] != "TASK_STATE_COMPLETED" || served.Attrs["rpc.system"] != "jsonrpc" {
		t.Errorf("served attempt attributes %v", served.Attrs)
	}
	if gone.Attrs["error.type"] != "not_found" || gone.Attrs["http.response.status_code"] != "404" || gone.StatusMessage == "" {
		t.Errorf("failed attempt: attributes %v, status %q", gone.Attrs, gone.StatusMessage)
	}
	if len(call.Events) != 1 || call.Events[0].Attrs["a2abind.fallback.from"] != "JSONRPC 1.0 at "+agent.URL("/gone") ||
		call.Events[0].Attrs["a2abind.fallback.to"] != "JSONRPC 1.0 at "+agent.URL("/a2a") {
		t.Errorf("call events %+v", call.Events)
	}

	parents := map[string][]string{} // request -> the spans it came under
	for _, s := range rec.Received() {
		if s.Method == "PRI *" {
			continue // an HTTP/2 preface read as HTTP/1 (a gRPC lookup naming the failure): no header
		}
		if s.TraceID() != traceID {
			t.Errorf("the agent received %s with traceparent %q, not of the caller's trace %s", s.Method, s.Traceparent, traceID)
			continue
		}
		parents[s.Method] = append(parents[s.Method], byID[s.ParentID()].Name+"/"+byID[s.ParentID()].Attrs["a2abind.outcome"])
	}
	if got := parents["POST /a2a"]; len(got) != 2 || !slices.Contains(got, op+"/served") || !slices.Contains(got, "GetTask/served") {
		t.Errorf("POST /a2a came under %v", got)
	}
	for _, want := range []string{op + "/not_found", "GetTask/not_found"} {
		if !slices.Contains(parents["POST /gone"], want) {
			t.Errorf("no POST /gone under %s: %v", want, parents["POST /gone"])
		}
	}
}

// TestNoTraceContextWhenOff: with no tracer provider anywhere, a call sends no
// traceparent, even with the W3C propagator installed.
func TestNoTraceContextWhenOff(t *testing.T) {
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })
	rec := &otlptest.Recorder{}
	agent := labtest.Start(t, append(lab.Seed(), recording(rec)...)...)
	ctx := testContext(t)
	c := newTestClient(t, ctx, agent.BaseURL)
	if _, err := c.SendMessage(ctx, userMessage("untraced")); err != nil {
		t.Fatal(err)
	}
	seen := rec.Received()
	if len(seen) < 3 {
		t.Fatalf("the agent saw %+v, want the card fetch and both attempts", seen)
	}
	for _, s := range seen {
		if s.Traceparent != "" {
			t.Errorf("%s carried traceparent %q with tracing off", s.Method, s.Traceparent)
		}
	}
}

// recording makes a lab agent record the trace context of every request it receives.
func recording(rec *otlptest.Recorder) []lab.Option {
	return []lab.Option{lab.WithHTTPMiddleware(rec.HTTP), lab.WithGRPCServerOptions(rec.GRPCOption())}
}

func oneSpan(t *testing.T, spans []otlptest.Span, match func(otlptest.Span) bool) otlptest.Span {
	t.Helper()
	var found []otlptest.Span
	var all []string
	for _, s := range spans {
		all = append(all, s.Name+"/"+s.Attrs["a2abind.outcome"])
		if match(s) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d matching spans, want 1, among %v", len(found), all)
	}
	return found[0]
}
