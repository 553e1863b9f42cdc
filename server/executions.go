package server

import (
	"context"
	"iter"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// executions binds the agent's executions to the server's lifetime. a2a-go runs every
// execution and cancellation in a context detached from its request (a task goes on
// after its client hung up), so without this an execution still running when the
// server shuts down would outlive it, and its goroutines with it.
type executions struct {
	inner  a2asrv.AgentExecutor
	life   context.Context
	end    context.CancelFunc
	wg     sync.WaitGroup
	closed bool
	mu     sync.Mutex
}

func newExecutions(inner a2asrv.AgentExecutor) *executions {
	life, end := context.WithCancel(context.Background())
	return &executions{inner: inner, life: life, end: end}
}

// Execute runs the agent's Execute with a context also cancelled when the server stops.
func (e *executions) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return e.bound(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] { return e.inner.Execute(ctx, ec) })
}

// Cancel runs the agent's Cancel with a context also cancelled when the server stops.
func (e *executions) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return e.bound(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] { return e.inner.Cancel(ctx, ec) })
}

func (e *executions) bound(ctx context.Context, run func(context.Context) iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			yield(nil, context.Canceled)
			return
		}
		e.wg.Add(1)
		e.mu.Unlock()
		defer e.wg.Done()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(e.life, cancel)()
		for ev, err := range run(ctx) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// executionGrace bounds how long Shutdown waits for cancelled executions to return, on
// top of the drain: one that honours its context returns at once.
const executionGrace = time.Second

// stop cancels the executions still running and waits for them to return, at most
// wait. It reports whether they all did (an executor that ignores its context cannot
// be stopped).
func (e *executions) stop(wait time.Duration) bool {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.end()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}
