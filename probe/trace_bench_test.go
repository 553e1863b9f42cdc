package probe_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// BenchmarkTracingCost probes a healthy agent's card (three interfaces, one lookup
// each) on one warm Engine, turn by turn with tracing off (no provider set: what
// every command runs with when no OTEL_* variable asks for tracing), with
// OpenTelemetry's own no-op provider (the baseline: instrumentation that records
// nothing), and on (the SDK sampling every span, into memory). It reports the time of
// a probe in each mode and the ratios: off/noop near 1 is "no cost when off".
func BenchmarkTracingCost(b *testing.B) {
	a := labtest.Start(b, lab.Healthy()...)
	c, err := card.Fetch(context.Background(), a.BaseURL)
	if err != nil {
		b.Fatal(err)
	}
	unset := otel.GetTracerProvider()
	defer func() {
		if otel.GetTracerProvider() != unset {
			otel.SetTracerProvider(unset)
		}
	}()
	mem := tracetest.NewInMemoryExporter()
	sdk := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	defer func() { _ = sdk.Shutdown(context.Background()) }()
	nop := noop.NewTracerProvider()
	modes := []struct {
		name string
		tp   trace.TracerProvider
	}{{"off", unset}, {"noop", nop}, {"on", sdk}}
	e := probe.NewEngine()
	defer e.Close()
	opts := []probe.Option{probe.WithTimeout(5 * time.Second)}
	e.Card(context.Background(), c, opts...) // warm the connections
	spent := make([]time.Duration, len(modes))
	b.ResetTimer()
	for b.Loop() {
		for m, mode := range modes {
			if otel.GetTracerProvider() != mode.tp {
				otel.SetTracerProvider(mode.tp)
			}
			start := time.Now()
			e.Card(context.Background(), c, opts...)
			spent[m] += time.Since(start)
		}
		mem.Reset()
	}
	n := float64(b.N)
	for m, mode := range modes {
		b.ReportMetric(float64(spent[m].Nanoseconds())/n, mode.name+"-ns/probe")
	}
	b.ReportMetric(float64(spent[0])/float64(spent[1]), "off/noop")
	b.ReportMetric(float64(spent[2])/float64(spent[0]), "on/off")
}
