package otlptest

import (
	"context"
	"testing"

	"github.com/a2abind/a2abind/internal/telemetry"
)

// Setup starts a receiver, points the OTEL_* variables at it over protocol and sets
// tracing up as a2abind's commands do (telemetry.Setup, the global provider); when t
// ends the spans left are flushed and tracing is off again.
func Setup(t testing.TB, protocol string) *Receiver {
	t.Helper()
	r := Start(t)
	r.Env(t, protocol)
	p, err := telemetry.Setup(context.Background())
	if err != nil || !p.Enabled() {
		t.Fatalf("telemetry.Setup() = enabled %v, %v", p.Enabled(), err)
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return r
}
