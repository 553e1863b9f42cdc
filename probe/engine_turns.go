package probe

import (
	"context"
	"strings"
	"sync"
	"time"
)

// turnPatience is how long an HTTP request to an origin in its first visit waits for
// the request before it to leave the origin's keep-alive connection, before it opens a
// connection of its own. A loopback or LAN answer takes far less; across a slow
// network, or to an origin slow to answer (a hanging interface), the requests go out in
// parallel again after it, so no lookup waits long for another.
const turnPatience = 100 * time.Millisecond

// turns make the HTTP requests of one probe of a card (Engine.Card, and a target of
// Engine.Targets: its card fetch, lookups, capability calls and diagnosis lookups)
// take turns on one keep-alive connection per origin (scheme, host and port) the
// Engine had not sent a request to before. HTTP/1.1 carries one request at a time per
// connection: a fleet round that visits each target once would otherwise open a
// connection per request in flight to each agent, beside the card fetch's, each one a
// dial, an accept, a close and a TIME_WAIT socket, and a round trip before its request
// goes out, about what waiting for the previous answer costs. Origins the Engine knows
// (an exporter, a fleet loop on a long-lived Engine) are asked in parallel over the
// connections it keeps warm. gRPC calls multiplex on one channel per address and take
// no turns.
type turns struct {
	e     *Engine
	mu    sync.Mutex
	slots map[string]chan struct{} // the origins in their first visit: whose turn it is
	known map[string]bool          // the origins the Engine had visited before
}

type turnsKey struct{}

// withTurns returns ctx carrying a turns of its own, unless it carries one already (a
// card probed within a target shares the target's).
func (e *Engine) withTurns(ctx context.Context) context.Context {
	if _, ok := ctx.Value(turnsKey{}).(*turns); ok {
		return ctx
	}
	return context.WithValue(ctx, turnsKey{}, &turns{e: e, slots: map[string]chan struct{}{}, known: map[string]bool{}})
}

// takeTurn waits, for at most turnPatience, for origin's turn when ctx's probe takes
// turns there, and returns its release (idempotent; a no-op when no turn was taken).
func takeTurn(ctx context.Context, origin string) func() {
	t, _ := ctx.Value(turnsKey{}).(*turns)
	if t == nil {
		return func() {}
	}
	origin = strings.ToLower(origin)
	t.mu.Lock()
	slot := t.slots[origin]
	if slot == nil && !t.known[origin] {
		if t.e.firstVisit(origin) {
			slot = make(chan struct{}, 1)
			t.slots[origin] = slot
		} else {
			t.known[origin] = true
		}
	}
	t.mu.Unlock()
	if slot == nil {
		return func() {}
	}
	var once sync.Once
	release := func() { once.Do(func() { <-slot }) }
	select {
	case slot <- struct{}{}: // the connection is free: no timer
		return release
	default:
	}
	wait := time.NewTimer(turnPatience)
	defer wait.Stop()
	select {
	case slot <- struct{}{}:
		return release
	case <-wait.C: // slow to answer: a connection of its own
	case <-ctx.Done(): // the request fails on its own context
	}
	return func() {}
}

// firstVisit reports whether origin is new to the Engine, and remembers it. The memory
// is bounded by WithMaxIdle (the connections it could hold warm): when full it starts
// over.
func (e *Engine) firstVisit(origin string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.visited[origin]; ok {
		return false
	}
	if len(e.visited) >= e.cfg.maxIdle {
		clear(e.visited)
	}
	e.visited[origin] = struct{}{}
	return true
}
