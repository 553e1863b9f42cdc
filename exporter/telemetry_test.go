package exporter_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// TestProbeIsTraced: each /probe is a trace of its own rooted at the target's check,
// with the card fetch and every interface under it, its log lines carry the trace and
// span ids, and the agent receives that
// trace on every request it gets (the gRPC call to the HTTP/1.1 port aside: its
// metadata never reach an HTTP/1.1 server).
func TestProbeIsTraced(t *testing.T) {
	rec := &otlptest.Recorder{}
	seed := labtest.Start(t, append(lab.Seed(), lab.WithHTTPMiddleware(rec.HTTP), lab.WithGRPCServerOptions(rec.GRPCOption()))...)
	rcv := otlptest.Start(t)
	rcv.Env(t, "grpc")
	tel, err := telemetry.Setup(context.Background())
	if err != nil || !tel.Enabled() {
		t.Fatalf("Setup: %v", err)
	}
	base := start(t, nil)
	resp, err := http.Get(base + probePath(seed.BaseURL) + "&debug=true")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	debug := string(body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/probe answered %d, %v: %s", resp.StatusCode, err, debug)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := rcv.Spans()
	var root otlptest.Span
	for _, s := range spans {
		if s.Name == probe.SpanTarget {
			root = s
		}
	}
	if root.SpanID == "" || root.ParentSpanID != "" || root.Attrs["a2abind.target"] != seed.BaseURL {
		t.Fatalf("no root %s span for the target: %+v", probe.SpanTarget, spans)
	}
	// The probe's log lines, in the debug output, name the trace and the check's span.
	if !strings.Contains(debug, "trace_id="+root.TraceID+" span_id="+root.SpanID) {
		t.Errorf("the debug log does not carry the trace: %s", debug)
	}
	children := map[string]int{}
	for _, s := range rcv.Trace(root.TraceID) {
		if s.ParentSpanID == root.SpanID {
			children[s.Name]++
		}
	}
	if children[card.SpanFetch] != 1 || children[probe.SpanInterface] != 3 {
		t.Errorf("children of the check: %v, want 1 card fetch and 3 interfaces", children)
	}
	n := 0
	for _, r := range rec.Received() {
		if r.Method == "PRI *" {
			continue
		}
		n++
		if r.TraceID() != root.TraceID {
			t.Errorf("the agent received %s %s with traceparent %q, not of trace %s", r.Protocol, r.Method, r.Traceparent, root.TraceID)
		}
		if strings.HasPrefix(r.Method, "GET /.well-known/") && r.ParentID() == root.SpanID {
			t.Errorf("the card fetch was sent by the check's span, not by its fetch span")
		}
	}
	if n == 0 {
		t.Fatal("the agent received nothing")
	}
}
