package guard_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientParent = "00f067aa0ba902b7"
	traceparent  = "00-" + clientTrace + "-" + clientParent + "-01"
)

// proxiedGetTask sends a JSON-RPC GetTask through the guard with the client's traceparent.
func proxiedGetTask(t *testing.T, guardURL string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"traced-task"}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, guardURL+lab.PathJSONRPC, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Traceparent", traceparent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("proxied GetTask: %s", resp.Status)
	}
}

// TestGuardPropagatesToUpstream: with tracing on (OTEL_* naming a real OTLP receiver on
// loopback; otlptest's doc says why not Jaeger), a request proxied by the guard reaches
// the upstream in the client's trace, under the guard's server span, which is the
// client span's child; each guard round is a trace of its own, and the upstream's card
// fetch of that round carries it.
func TestGuardPropagatesToUpstream(t *testing.T) {
	rcv := otlptest.Setup(t, "grpc")
	rec := &otlptest.Recorder{}
	agent := labtest.Start(t, append(lab.Healthy(), recording(rec)...)...)
	g := startGuard(t, agent.BaseURL)
	proxiedGetTask(t, g.URL())

	proxied := lastProxied(rec)
	if proxied.TraceID() != clientTrace {
		t.Fatalf("the upstream received traceparent %q, want the client's trace %s", proxied.Traceparent, clientTrace)
	}
	if _, err := rcv.Wait(5*time.Second, func([]otlptest.Span) bool { return len(rcv.Trace(clientTrace)) > 0 }); err != nil {
		t.Fatal(err)
	}
	spans := rcv.Trace(clientTrace)
	if len(spans) != 1 || spans[0].Kind.String() != "SPAN_KIND_SERVER" || spans[0].ParentSpanID != clientParent ||
		proxied.ParentID() != spans[0].SpanID {
		t.Errorf("client trace spans %+v; the upstream's parent %s: want the guard's server span under %s", spans, proxied.ParentID(), clientParent)
	}

	round, err := rcv.WaitNamed(5*time.Second, guard.SpanRound)
	if err != nil {
		t.Fatal(err)
	}
	if round.ParentSpanID != "" || round.TraceID == clientTrace || round.Attrs["a2abind.published"] != "true" || round.Attrs["a2abind.round"] != "1" {
		t.Errorf("round span %+v, want a published first round, a root of its own", round)
	}
	fetched := false
	for _, s := range rec.Received() {
		fetched = fetched || s.Method == "GET /.well-known/agent-card.json" && s.TraceID() == round.TraceID
	}
	if !fetched {
		t.Errorf("no card fetch of the upstream in the round's trace %s: %+v", round.TraceID, rec.Received())
	}
}

// TestGuardKeepsTheClientTraceWhenOff: with tracing off (Setup installs only the W3C
// propagator), the upstream receives the client's traceparent unchanged.
func TestGuardKeepsTheClientTraceWhenOff(t *testing.T) {
	for _, k := range []string{telemetry.EnvTracesExporter, telemetry.EnvEndpoint, telemetry.EnvTracesEndpoint} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	p, err := telemetry.Setup(context.Background())
	if err != nil || p.Enabled() {
		t.Fatalf("telemetry.Setup() = enabled %v, %v; want off", p.Enabled(), err)
	}
	rec := &otlptest.Recorder{}
	agent := labtest.Start(t, append(lab.Healthy(), recording(rec)...)...)
	g := startGuard(t, agent.BaseURL)
	proxiedGetTask(t, g.URL())
	if got := lastProxied(rec).Traceparent; got != traceparent {
		t.Errorf("the upstream received traceparent %q, want the client's %q", got, traceparent)
	}
}

// recording makes a lab agent record the trace context of every request it receives.
func recording(rec *otlptest.Recorder) []lab.Option {
	return []lab.Option{lab.WithHTTPMiddleware(rec.HTTP), lab.WithGRPCServerOptions(rec.GRPCOption())}
}

// lastProxied is the last JSON-RPC request the upstream received: the proxied one, as
// the guard's first round (whose probe posts there too) ended before Start returned.
func lastProxied(rec *otlptest.Recorder) otlptest.Received {
	var last otlptest.Received
	for _, s := range rec.Received() {
		if s.Method == "POST "+lab.PathJSONRPC {
			last = s
		}
	}
	return last
}
