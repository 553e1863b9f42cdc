package probe

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/a2abind/a2abind/card"
)

// DefaultConcurrency is how many targets Engine.Targets probes at once when
// WithConcurrency is not given.
const DefaultConcurrency = 16

// WithConcurrency sets how many targets Engine.Targets loads and probes at once
// (DefaultConcurrency). The Engine's caps still bound the requests in flight.
func WithConcurrency(n int) Option { return func(o *options) { o.concurrency = n } }

// WithCardOptions adds options to the card.Load of each target of Engine.Targets (for
// example card.WithMaxBytes). The card is fetched with the connection configuration's
// headers (WithConn) over the Engine's connections (Engine.HTTPClient)
// unless an option given here sets another client.
func WithCardOptions(opts ...card.Option) Option {
	return func(o *options) { o.cardOpts = append(o.cardOpts, opts...) }
}

// WithTargetTimeout bounds each target of Engine.Targets as a whole (its card fetch
// and its interfaces' probes together); 0, the default, leaves only WithTimeout's
// bound on each request and the run's context. A target that runs out of time gets
// the results it has: the card error, or its interfaces timed out.
func WithTargetTimeout(d time.Duration) Option { return func(o *options) { o.perTarget = d } }

// WithAdmit runs admit on each card Engine.Targets loads, before anything else is
// dialled: it returns the card to probe (the card itself, or one cut down to some of
// its interfaces, such as those a signature covers), or nil to probe none. The result
// still reports the whole card.
func WithAdmit(admit func(context.Context, *card.Card) *card.Card) Option {
	return func(o *options) { o.admit = admit }
}

// TargetResult is the probe of one target, as Engine.Targets sends it.
type TargetResult struct {
	// Target is the target as given.
	Target string
	// Card is the target's card; nil when it could not be obtained.
	Card *card.Card
	// Results are the card's interfaces' results, in card order (as Card returns them).
	Results []Result
	// Capabilities are the card's capabilities' results (as Check returns them); empty
	// with WithCapabilities(false).
	Capabilities []CapabilityResult
	// Err says why the card could not be obtained (it wraps card.ErrUnavailable or
	// card.ErrMalformed) or why the target was not probed at all; nil otherwise.
	Err error
	// FetchDuration is how long loading the card took.
	FetchDuration time.Duration
	// Duration is how long the whole target took, card and probes.
	Duration time.Duration
}

// Targets loads the card of each target (card.Load: a base URL, a card URL or a file)
// and checks it as Check does (its interfaces and, unless WithCapabilities(false), its
// capabilities), WithConcurrency targets at once, on the Engine's warm
// connections. It sends each target's result on the returned channel as soon as it is
// done, so in completion order, exactly one per target, and closes the channel after
// the last. ctx bounds the whole run: targets not started when it ends get a result
// whose Err says so. The caller must receive until the channel is closed (or cancel
// ctx and then drain it). Goroutines and memory grow with the concurrency, not with the
// number of targets.
func (e *Engine) Targets(ctx context.Context, targets []string, opts ...Option) <-chan TargetResult {
	o := newOptions(opts)
	n := o.concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	n = max(min(n, len(targets)), 1)
	out := make(chan TargetResult, n)
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range jobs {
				out <- e.target(ctx, t, o, opts)
			}
		}()
	}
	go func() {
		for _, t := range targets {
			jobs <- t
		}
		close(jobs)
		wg.Wait()
		close(out)
	}()
	return out
}

// target loads and probes one target.
func (e *Engine) target(ctx context.Context, target string, o *options, opts []Option) TargetResult {
	res := TargetResult{Target: target}
	if err := context.Cause(ctx); err != nil {
		res.Err = fmt.Errorf("not probed: %w", err)
		return res
	}
	if o.perTarget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.perTarget)
		defer cancel()
	}
	ctx, span := StartTarget(ctx, target) // trace.go
	defer func() { span.End(res.Card, res.Results, res.Err) }()
	start := time.Now()
	loadOpts := append([]card.Option{card.WithConn(o.conn), card.WithHTTPClient(e.client(o)), card.WithTimeout(o.timeout)}, o.cardOpts...)
	res.Card, res.Err = card.Load(ctx, target, loadOpts...)
	res.FetchDuration = time.Since(start)
	dial := res.Card
	if res.Err == nil && o.admit != nil {
		dial = o.admit(ctx, res.Card)
	}
	if res.Err == nil && dial != nil {
		chk := e.Check(ctx, dial, opts...)
		res.Results, res.Capabilities = chk.Results, chk.Capabilities
	}
	res.Duration = time.Since(start)
	return res
}
