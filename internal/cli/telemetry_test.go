package cli

import (
	"strings"

	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// TestShortRunFlushesItsSpans: a one-shot command exports its spans before it exits,
// over both OTLP protocols, although the batch delay is a minute: only the flush on
// exit can have sent them.
func TestShortRunFlushesItsSpans(t *testing.T) {
	a := labtest.Start(t, lab.Seed()...)
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(protocol, func(t *testing.T) {
			rcv := otlptest.Start(t)
			rcv.Env(t, protocol)
			t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "60000")
			code, _, stderr := runCLI(t, "", "lint", a.BaseURL)
			if code == ExitUsage {
				t.Fatalf("lint exit %d: %s", code, stderr)
			}
			var fetch *otlptest.Span
			for _, s := range rcv.Spans() {
				if s.Name == card.SpanFetch {
					fetch = &s
				}
			}
			if fetch == nil {
				t.Fatalf("no %s span arrived before the command returned: %+v", card.SpanFetch, rcv.Spans())
			}
			if fetch.Service != "a2abind" || fetch.Attrs["url.full"] != a.BaseURL+card.WellKnownPath || fetch.Attrs["http.response.status_code"] != "200" {
				t.Errorf("card fetch span: service %q attrs %v", fetch.Service, fetch.Attrs)
			}
		})
	}
}

// TestTracingOffSendsNothing: OTEL_TRACES_EXPORTER=none switches tracing off even with
// an endpoint naming a live receiver (telemetry's TestOffStartsNothing covers the
// variables left unset).
func TestTracingOffSendsNothing(t *testing.T) {
	a := labtest.Start(t, lab.Seed()...)
	rcv := otlptest.Start(t)
	rcv.Env(t, "http/protobuf")
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	if code, _, stderr := runCLI(t, "", "lint", a.BaseURL); code == ExitUsage {
		t.Fatalf("lint exit %d: %s", code, stderr)
	}
	if n := rcv.Requests(); n != 0 {
		t.Errorf("%d export requests with tracing off", n)
	}
}

// tracedSeed starts the seed incident's agent with a recorder of the trace context of
// every request it receives, card fetch and gRPC calls to its unregistered service
// included.
func tracedSeed(t *testing.T) (*lab.Agent, *otlptest.Recorder) {
	rec := &otlptest.Recorder{}
	a := labtest.Start(t, append(lab.Seed(), lab.WithHTTPMiddleware(rec.HTTP), lab.WithGRPCServerOptions(rec.GRPCOption()))...)
	return a, rec
}

// checkProbeTrace checks that the spans of one target's probe of the seed agent form
// one trace: the check's root span, the card fetch, the three declared interfaces with
// their outcomes and the capability calls under it, the lookups under the interfaces,
// each named after its A2A method,
// and that every request the agent received carried that trace and the span id of
// the lookup or fetch that sent it. It returns the trace id.
func checkProbeTrace(t *testing.T, spans []otlptest.Span, received []otlptest.Received, target string) string {
	t.Helper()
	var root *otlptest.Span
	for i, s := range spans {
		if s.Name == probe.SpanTarget && s.Attrs["a2abind.target"] == target {
			root = &spans[i]
		}
	}
	if root == nil {
		t.Fatalf("no %s span for %s among %d spans", probe.SpanTarget, target, len(spans))
	}
	if root.ParentSpanID != "" {
		t.Errorf("the check's span has a parent %s: not a root", root.ParentSpanID)
	}
	byID := map[string]otlptest.Span{}
	var ifaces []otlptest.Span
	lookups := 0
	capabilities := map[string]bool{}
	for _, s := range spans {
		if s.TraceID != root.TraceID {
			continue
		}
		byID[s.SpanID] = s
	}
	for _, s := range byID {
		switch {
		case s.Name == probe.SpanInterface:
			ifaces = append(ifaces, s)
			if s.ParentSpanID != root.SpanID {
				t.Errorf("interface span %v is not a child of the check", s.Attrs)
			}
		case s.Name == card.SpanFetch:
			if s.ParentSpanID != root.SpanID {
				t.Errorf("card fetch span is not a child of the check")
			}
		case s.Attrs["a2abind.capability"] != "":
			capabilities[s.Attrs["a2abind.capability"]] = true
			if s.ParentSpanID != root.SpanID || s.Attrs["a2abind.capability.outcome"] == "" || s.Attrs["a2a.method.name"] != s.Name {
				t.Errorf("capability call %s %v: not a child of the check, or no outcome", s.Name, s.Attrs)
			}
		case s.Name == "tasks/get" || s.Name == "GetTask":
			lookups++
			parent, ok := byID[s.ParentSpanID]
			if !ok || parent.Name != probe.SpanInterface {
				t.Errorf("lookup %s %v: parent %q is not an interface span", s.Name, s.Attrs, parent.Name)
			}
			for _, k := range []string{"a2abind.binding", "a2abind.protocol_version", "a2abind.outcome", "server.address", "server.port", "rpc.system", "a2a.method.name", "a2a.task.id"} {
				if s.Attrs[k] == "" {
					t.Errorf("lookup %s %v lacks %s", s.Name, s.Attrs, k)
				}
			}
			if o := s.Attrs["a2abind.outcome"]; o != "served" && o != "auth_required" && s.Attrs["error.type"] != o {
				t.Errorf("lookup with outcome %s has error.type %q", o, s.Attrs["error.type"])
			}
			if s.Kind.String() != "SPAN_KIND_CLIENT" {
				t.Errorf("lookup kind %v", s.Kind)
			}
		}
	}
	outcomes := map[string]string{}
	for _, s := range ifaces {
		outcomes[s.Attrs["a2abind.binding"]+" "+s.Attrs["a2abind.interface.url"]] = s.Attrs["a2abind.outcome"]
	}
	if len(ifaces) != 3 || !containsAll(outcomes, "wrong_binding", "served", "handler_missing") {
		t.Errorf("interface spans: %v, want the seed's wrong_binding, served, handler_missing", outcomes)
	}
	if lookups < 3 {
		t.Errorf("%d lookup spans, want one per interface at least", lookups)
	}
	if len(capabilities) != 3 {
		t.Errorf("capability calls of %v, want streaming, pushNotifications and extendedAgentCard", capabilities)
	}
	kinds := map[string]bool{}
	for _, r := range received {
		if r.Method == "PRI *" {
			// A gRPC lookup at the HTTP/1.1 port (GRPC declared there): the server reads
			// the HTTP/2 preface as a request and never the frames with the metadata.
			continue
		}
		if r.TraceID() != root.TraceID {
			t.Errorf("the agent received %s %s with traceparent %q, not of trace %s", r.Protocol, r.Method, r.Traceparent, root.TraceID)
			continue
		}
		sender, ok := byID[r.ParentID()]
		if !ok || sender.Name == probe.SpanTarget || sender.Name == probe.SpanInterface {
			t.Errorf("%s %s was sent by span %q (%s), not by a lookup or the card fetch", r.Protocol, r.Method, sender.Name, r.ParentID())
			continue
		}
		switch {
		case r.Protocol == "grpc":
			kinds["grpc"] = true
		case strings.HasPrefix(r.Method, "GET /.well-known/"):
			kinds["card"] = true
		case strings.HasPrefix(r.Method, "POST "):
			kinds[sender.Attrs["a2abind.binding"]] = true // JSONRPC, or HTTP+JSON of v1.0
		default:
			kinds[sender.Attrs["a2abind.binding"]] = true
		}
	}
	for _, want := range []string{"card", "JSONRPC", "HTTP+JSON", "grpc"} {
		if !kinds[want] {
			t.Errorf("the agent received no %s request carrying the trace; received: %+v", want, received)
		}
	}
	return root.TraceID
}

func containsAll(m map[string]string, values ...string) bool {
	have := map[string]bool{}
	for _, v := range m {
		have[v] = true
	}
	for _, v := range values {
		if !have[v] {
			return false
		}
	}
	return true
}

// TestTraceOfProbeJoinsTheAgent is the acceptance: a probe of the seed agent
// shows, in one trace, the check, each interface with its outcome and each lookup,
// and the agent's received requests carry the same trace id, over JSON-RPC, gRPC and
// HTTP+JSON, card fetch included.
func TestTraceOfProbeJoinsTheAgent(t *testing.T) {
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(protocol, func(t *testing.T) {
			a, rec := tracedSeed(t)
			rcv := otlptest.Start(t)
			rcv.Env(t, protocol)
			code, stdout, stderr := runCLI(t, "", "probe", a.BaseURL, "-o", "json", "--timeout", "10s")
			if code != ExitFailed {
				t.Fatalf("probe exit %d, want %d: %s %s", code, ExitFailed, stdout, stderr)
			}
			spans := rcv.Spans()
			id := checkProbeTrace(t, spans, rec.Received(), a.BaseURL)
			for _, s := range spans {
				if s.TraceID != id {
					t.Errorf("span %s is in another trace %s", s.Name, s.TraceID)
				}
			}
		})
	}
}

// TestTraceOfEachFleetTarget: probe --targets gives each target a root span and
// a trace of its own, which that target's agent receives.
func TestTraceOfEachFleetTarget(t *testing.T) {
	a1, rec1 := tracedSeed(t)
	a2, rec2 := tracedSeed(t)
	rcv := otlptest.Start(t)
	rcv.Env(t, "http/protobuf")
	code, stdout, stderr := runCLI(t, a1.BaseURL+"\n"+a2.BaseURL+"\n", "probe", "--targets", "-", "-o", "json", "--timeout", "20s")
	if code != ExitFailed {
		t.Fatalf("probe --targets exit %d, want %d: %s %s", code, ExitFailed, stdout, stderr)
	}
	spans := rcv.Spans()
	id1 := checkProbeTrace(t, spans, rec1.Received(), a1.BaseURL)
	id2 := checkProbeTrace(t, spans, rec2.Received(), a2.BaseURL)
	if id1 == id2 {
		t.Errorf("both targets in one trace %s", id1)
	}
}

// TestUnusableTracingVariableIsReported: a variable telemetry cannot use is reported
// on standard error and the command runs without tracing, its exit code its own.
func TestUnusableTracingVariableIsReported(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	rcv := otlptest.Start(t)
	rcv.Env(t, "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "udp")
	code, _, stderr := runCLI(t, "", "probe", a.BaseURL, "--timeout", "10s")
	if code != ExitOK {
		t.Errorf("probe of a healthy agent exit %d with an unusable OTEL_EXPORTER_OTLP_PROTOCOL: %s", code, stderr)
	}
	if !strings.Contains(stderr, "tracing is off") || !strings.Contains(stderr, "OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Errorf("stderr does not say tracing is off and why: %q", stderr)
	}
	if n := rcv.Requests(); n != 0 {
		t.Errorf("%d export requests with tracing off", n)
	}
}
