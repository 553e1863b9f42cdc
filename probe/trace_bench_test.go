package probe_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// BenchmarkTracingCost probes the seed agent's card (three interfaces, eleven
// lookups) on one warm Engine, turn by turn with tracing off (no provider set: what
// every command runs with when no OTEL_* variable asks for tracing), with
// OpenTelemetry's own no-op provider (the baseline: instrumentation that records
// nothing), and on (the SDK sampling every span, into memory). It reports the time of
// a probe in each mode and the ratios: off/noop near 1 is "no cost when off".
func BenchmarkTracingCost(b *testing.B) {
	a := labtest.Start(b, lab.Seed()...)
	c, err := card.Fetch(context.Background(), a.BaseURL)
	if err != nil {
		b.Fatal(err)
	}
	unset := otel.GetTracerProvider()
	defer otel.SetTracerProvider(unset)
	mem := tracetest.NewInMemoryExporter()
	sdk := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem))
	defer func() { _ = sdk.Shutdown(context.Background()) }()
	modes := []struct {
		name string
		set  func()
	}{
		{"off", func() { otel.SetTracerProvider(unset) }},
		{"noop", func() { otel.SetTracerProvider(noop.NewTracerProvider()) }},
		{"on", func() { otel.SetTracerProvider(sdk) }},
	}
	e := probe.NewEngine()
	defer e.Close()
	opts := []probe.Option{probe.WithTimeout(5 * time.Second)}
	e.Card(context.Background(), c, opts...) // warm the connections
	spent := make([]time.Duration, len(modes))
	b.ResetTimer()
	for b.Loop() {
		for m, mode := range modes {
			mode.set()
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
