package probe

import "time"

// workers run an Engine's lanes in goroutines that outlive one card: a lane is handed
// to a worker waiting for work, or to a new one. A lookup goes deep (the prober, the
// HTTP transport or grpc-go's stream setup), far past the 8 KB a fresh goroutine
// starts with, so a goroutine per lane had its stack grown and copied once or twice
// per lookup, a quarter of a warm probe's CPU. A worker keeps the stack it grew for
// the next lane. A worker left without work for the Engine's idle timeout ends, and
// every worker ends when the Engine is closed, once its lane is done.
type workers struct {
	jobs chan func() // unbuffered: a send succeeds only to a worker waiting for work
	done chan struct{}
	idle time.Duration
}

func newWorkers(idle time.Duration) *workers {
	return &workers{jobs: make(chan func()), done: make(chan struct{}), idle: idle}
}

// run runs f in a worker and returns without waiting for it.
func (w *workers) run(f func()) {
	select {
	case w.jobs <- f:
	default:
		go w.work(f)
	}
}

// work runs f, then the lanes handed to it, until it waits the idle timeout for one
// or the Engine is closed.
func (w *workers) work(f func()) {
	t := time.NewTimer(w.idle)
	defer t.Stop()
	for {
		f()
		t.Reset(w.idle)
		select {
		case f = <-w.jobs:
		case <-t.C:
			return
		case <-w.done:
			return
		}
	}
}

// close ends the workers waiting for work, and each busy one once its lane is done.
func (w *workers) close() { close(w.done) }
