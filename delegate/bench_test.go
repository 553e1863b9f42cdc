package delegate

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// The benchmarks measure SendMessage latency on loopback. Each iteration calls every
// caller of the benchmark once, in a rotating order, so that the machine's background
// load hits them alike; each caller's median is reported, with the ratios that matter.
//
// BenchmarkSteadyState:
//
//	a2ago-ns             plain a2a-go client -> healthy agent (the baseline)
//	healthy-ns           delegate -> healthy agent
//	seed-steady-ns       delegate -> seed agent, steady state (the cache knows what answers)
//	delegate/a2ago       healthy-ns / a2ago-ns: delegate's own overhead
//	seed-steady/healthy  what a misdeclared card costs in steady state (the issue asks
//	                     for a few percent at most)
//
// BenchmarkFirstCall:
//
//	healthy-ns           delegate -> healthy agent, steady state
//	seed-first-ns        delegate -> seed agent, the first call of a fresh client and cache
//	                     (card loaded once, outside the timing): pays the one failed attempt
//	seed-first/healthy   the one-time cost of the lie
//
// The v1.0 runs use lab.Healthy / lab.SeedV1 (JSON-RPC 1.0 answers), the v0.3 runs
// lab.HealthyV03 / lab.Seed (JSON-RPC 0.3 answers), so each ratio compares the same wire.
var benchPairs = []struct {
	name          string
	healthy, seed func() []lab.Option
	v03           bool
}{
	{"v1.0", lab.Healthy, lab.SeedV1, false},
	{"v0.3", lab.HealthyV03, lab.Seed, true},
}

// timed is one benchmarked caller: it makes one call and says how long the part that
// counts took.
type timed func() (time.Duration, error)

func timeIt(call func() error) timed {
	return func() (time.Duration, error) {
		start := time.Now()
		err := call()
		return time.Since(start), err
	}
}

// rotate runs every caller once per iteration, rotating the order, and returns each
// caller's median.
func rotate(b *testing.B, callers ...timed) []float64 {
	b.Helper()
	for _, c := range callers { // warm connections
		if _, err := c(); err != nil {
			b.Fatal(err)
		}
	}
	samples := make([][]time.Duration, len(callers))
	for i := 0; b.Loop(); i++ {
		for k := range callers {
			j := (i + k) % len(callers)
			d, err := callers[j]()
			if err != nil {
				b.Fatal(err)
			}
			samples[j] = append(samples[j], d)
		}
	}
	med := make([]float64, len(samples))
	for j, s := range samples {
		med[j] = float64(median(s))
	}
	return med
}

func BenchmarkSteadyState(b *testing.B) {
	for _, pair := range benchPairs {
		b.Run(pair.name, func(b *testing.B) {
			ctx := context.Background()
			healthy := labtest.Start(b, pair.healthy()...)
			seed := labtest.Start(b, pair.seed()...)
			plain := plainClient(b, ctx, healthy.BaseURL, pair.v03)
			viaDelegate := benchClient(b, ctx, healthy.BaseURL)
			steady := benchClient(b, ctx, seed.BaseURL)
			if _, err := steady.SendMessage(ctx, userMessage("warm")); err != nil { // learns what answers
				b.Fatal(err)
			}
			med := rotate(b,
				timeIt(func() error { _, err := plain.SendMessage(ctx, userMessage("bench")); return err }),
				timeIt(func() error { _, err := viaDelegate.SendMessage(ctx, userMessage("bench")); return err }),
				timeIt(func() error {
					var tr Trace
					_, err := steady.SendMessage(WithTrace(ctx, &tr), userMessage("bench"))
					if err == nil && len(tr.Attempts()) != 1 {
						b.Fatalf("steady state made %d attempts, want 1", len(tr.Attempts()))
					}
					return err
				}))
			b.ReportMetric(med[0], "a2ago-ns")
			b.ReportMetric(med[1], "healthy-ns")
			b.ReportMetric(med[2], "seed-steady-ns")
			b.ReportMetric(med[1]/med[0], "delegate/a2ago")
			b.ReportMetric(med[2]/med[1], "seed-steady/healthy")
		})
	}
}

func BenchmarkFirstCall(b *testing.B) {
	for _, pair := range benchPairs {
		b.Run(pair.name, func(b *testing.B) {
			ctx := context.Background()
			healthy := labtest.Start(b, pair.healthy()...)
			seed := labtest.Start(b, pair.seed()...)
			viaDelegate := benchClient(b, ctx, healthy.BaseURL)
			seedCard := benchClient(b, ctx, seed.BaseURL).Card()
			med := rotate(b,
				timeIt(func() error { _, err := viaDelegate.SendMessage(ctx, userMessage("bench")); return err }),
				func() (time.Duration, error) { return firstCall(ctx, seedCard) })
			b.ReportMetric(med[0], "healthy-ns")
			b.ReportMetric(med[1], "seed-first-ns")
			b.ReportMetric(med[1]/med[0], "seed-first/healthy")
		})
	}
}

// firstCall times the first SendMessage of a fresh client with a fresh cache.
func firstCall(ctx context.Context, cd *card.Card) (time.Duration, error) {
	c, err := NewFromCard(cd)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	var tr Trace
	start := time.Now()
	_, err = c.SendMessage(WithTrace(ctx, &tr), userMessage("first"))
	d := time.Since(start)
	if err == nil && len(tr.Attempts()) != 2 {
		return d, fmt.Errorf("first call to the seed agent made %d attempts, want 2", len(tr.Attempts()))
	}
	return d, err
}

func median(s []time.Duration) time.Duration {
	if len(s) == 0 {
		return 0
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return s[len(s)/2]
}

func benchClient(b *testing.B, ctx context.Context, target string) *Client {
	b.Helper()
	c, err := New(ctx, target)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// plainClient is an a2a-go client built the SDK's way (default transports; a2av0's card
// parser and JSON-RPC transport for a v0.3 card).
func plainClient(b *testing.B, ctx context.Context, baseURL string, v03 bool) *a2aclient.Client {
	b.Helper()
	r := agentcard.NewResolver(nil)
	var opts []a2aclient.FactoryOption
	if v03 {
		r.CardParser = a2av0.NewAgentCardParser()
		opts = append(opts, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}))
	}
	ac, err := r.Resolve(ctx, baseURL)
	if err != nil {
		b.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(ctx, ac, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Destroy() })
	return c
}
