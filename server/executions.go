package server

import (
	"context"
	"fmt"
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
	inner    a2asrv.AgentExecutor
	life     context.Context
	end      context.CancelFunc
	wg       sync.WaitGroup
	closed   bool
	watchers map[a2a.TaskID][]*watcher // waiting for the task's next execution
	mu       sync.Mutex
}

func newExecutions(inner a2asrv.AgentExecutor) *executions {
	life, end := context.WithCancel(context.Background())
	return &executions{inner: inner, life: life, end: end}
}

// Execute runs the agent's Execute with a context also cancelled when the server stops.
func (e *executions) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return e.bound(ctx, ec.TaskID, func(ctx context.Context) iter.Seq2[a2a.Event, error] { return e.inner.Execute(ctx, ec) })
}

// Cancel runs the agent's Cancel with a context also cancelled when the server stops.
func (e *executions) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return e.bound(ctx, ec.TaskID, func(ctx context.Context) iter.Seq2[a2a.Event, error] { return e.inner.Cancel(ctx, ec) })
}

func (e *executions) bound(ctx context.Context, task a2a.TaskID, run func(context.Context) iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			yield(nil, context.Canceled)
			return
		}
		e.wg.Add(1)
		watching := e.watchers[task]
		delete(e.watchers, task)
		e.mu.Unlock()
		defer e.wg.Done()
		for _, w := range watching {
			defer close(w.ch)
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(e.life, cancel)()
		for ev, err := range run(ctx) {
			for _, w := range watching {
				w.send(ev, err)
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// watcherBuffer bounds the events held for a subscriber that reads slower than the
// execution produces them; beyond it the subscriber's stream ends with an error.
const watcherBuffer = 256

// watcher receives the events of the next execution (or cancellation) of one task.
type watcher struct {
	e    *executions
	task a2a.TaskID
	ch   chan watched // closed when that execution ends
	lost bool         // events were dropped (set by the execution's goroutine only)
}

type watched struct {
	ev  a2a.Event
	err error
}

// watch registers a watcher for the task's next execution.
func (e *executions) watch(task a2a.TaskID) *watcher {
	w := &watcher{e: e, task: task, ch: make(chan watched, watcherBuffer)}
	e.mu.Lock()
	if e.watchers == nil {
		e.watchers = make(map[a2a.TaskID][]*watcher)
	}
	e.watchers[task] = append(e.watchers[task], w)
	e.mu.Unlock()
	return w
}

// close unregisters a watcher no execution has taken yet.
func (w *watcher) close() {
	w.e.mu.Lock()
	defer w.e.mu.Unlock()
	ws := w.e.watchers[w.task]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(w.e.watchers, w.task)
	} else {
		w.e.watchers[w.task] = ws
	}
}

// send passes one event on without blocking the execution.
func (w *watcher) send(ev a2a.Event, err error) {
	if w.lost {
		return
	}
	select {
	case w.ch <- watched{ev, err}:
	default:
		w.lost = true
	}
}

// events yields the events of the execution that takes the watcher, until it ends, the
// subscriber leaves (ctx) or the server stops.
func (w *watcher) events(ctx context.Context) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		for {
			select {
			case x, ok := <-w.ch:
				if !ok {
					if w.lost {
						yield(nil, fmt.Errorf("the subscriber read slower than the task produced events; %d were held, later ones dropped: %w", watcherBuffer, a2a.ErrInternalError))
					}
					return
				}
				if !yield(x.ev, x.err) || x.err != nil {
					return
				}
			case <-ctx.Done():
				return
			case <-w.e.life.Done():
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
