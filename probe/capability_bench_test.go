package probe_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// BenchmarkCapabilityCheck compares, on one warm engine and the healthy
// three-interface agent, probe's interface check alone (Engine.Card, as before issue
// 21) with the check of interfaces and capabilities together (Engine.Check), on
// loopback and behind a 4 ms round trip: "check" as an engine runs it (the capability
// calls reused for DefaultCapabilityMaxAge), "check-every" with all 9 calls made on
// every check (WithCapabilityMaxAge(0)), in parallel with the lookups. bench.sh prints
// check / card (goal: at most 1.5) and check-every / card.
func BenchmarkCapabilityCheck(b *testing.B) {
	for _, oneWay := range []time.Duration{0, wan} {
		c := healthyCard(b, oneWay)
		suffix := ""
		if oneWay > 0 {
			suffix = "-wan"
		}
		e := probe.NewEngine()
		b.Cleanup(func() { _ = e.Close() })
		ctx := context.Background()
		e.Check(ctx, c) // warm
		b.Run("card"+suffix, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, r := range e.Card(ctx, c, probe.WithTimeout(5*time.Second)) {
					if r.Outcome != wire.Served {
						b.Fatalf("%s: %s", r.Interface, r.Outcome)
					}
				}
			}
		})
		for _, mode := range []struct {
			name string
			opts []probe.Option
		}{{"check", nil}, {"check-every", []probe.Option{probe.WithCapabilityMaxAge(0)}}} {
			b.Run(mode.name+suffix, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					ch := e.Check(ctx, c, append(mode.opts, probe.WithTimeout(5*time.Second))...)
					if len(ch.Capabilities) != 3 || ch.Capabilities[0].Verdict != probe.CapabilityServed {
						b.Fatalf("capabilities %+v", ch.Capabilities)
					}
				}
			})
		}
	}
}

// BenchmarkFleetCapabilities runs rounds of Engine.Targets over 100 healthy lab agents
// (32 at once, one engine kept across rounds) without the capability checks, with them
// (calls reused for DefaultCapabilityMaxAge, as an exporter runs them) and with every
// call made in every round, and reports interface probes per second: bench.sh prints
// without / with (goal: at most 1.3) and without / with-every.
func BenchmarkFleetCapabilities(b *testing.B) {
	const n = 100
	targets := make([]string, n)
	for i := range targets {
		targets[i] = labtest.Start(b, lab.Healthy()...).BaseURL
	}
	for _, mode := range []struct {
		name   string
		on     bool
		maxAge time.Duration
	}{{"without", false, 0}, {"with", true, probe.DefaultCapabilityMaxAge}, {"with-every", true, 0}} {
		b.Run(fmt.Sprint(mode.name), func(b *testing.B) {
			e := probe.NewEngine()
			defer e.Close()
			ctx := context.Background()
			round := func() int {
				probes := 0
				for r := range e.Targets(ctx, targets, probe.WithConcurrency(32), probe.WithTimeout(10*time.Second), probe.WithCapabilities(mode.on), probe.WithCapabilityMaxAge(mode.maxAge)) {
					if r.Err != nil {
						b.Fatalf("%s: %v", r.Target, r.Err)
					}
					if mode.on && len(r.Capabilities) != 3 {
						b.Fatalf("%s: %d capabilities", r.Target, len(r.Capabilities))
					}
					probes += len(r.Results)
				}
				return probes
			}
			round() // warm
			probes := 0
			b.ResetTimer()
			for b.Loop() {
				probes += round()
			}
			b.ReportMetric(float64(probes)/b.Elapsed().Seconds(), "probes/s")
		})
	}
}
