package cli

import (
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
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
