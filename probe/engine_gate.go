package probe

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// gate bounds the requests an Engine has on the wire: a slot of the request's
// host:port first, then a global slot. A holder of a global slot always holds its host
// slot already and waits for nothing else, so the two never deadlock; and requests
// queued behind a busy host hold no global slot that other hosts could use.
type gate struct {
	global  chan struct{}
	perHost int

	mu    sync.Mutex
	hosts map[string]*hostSlots // only hosts with a request waiting or in flight
	spare []*hostSlots          // records of hosts gone idle, for the next host: no allocation per request
}

type hostSlots struct {
	sem   chan struct{}
	users int
}

// maxSpare bounds the idle host records a gate keeps for reuse.
const maxSpare = 64

func newGate(global, perHost int) *gate {
	return &gate{global: make(chan struct{}, global), perHost: perHost, hosts: map[string]*hostSlots{}}
}

// acquire waits for a slot for one request to hostport and fills in s, which the caller
// provides (on its stack, or inside the answer's body) and gives back with s.release.
// It fails only when ctx ends first; the error wraps ctx's cause.
func (g *gate) acquire(ctx context.Context, hostport string, s *slot) error {
	g.mu.Lock()
	h := g.hosts[hostport]
	if h == nil {
		if n := len(g.spare); n > 0 {
			h, g.spare = g.spare[n-1], g.spare[:n-1]
		} else {
			h = &hostSlots{sem: make(chan struct{}, g.perHost)}
		}
		g.hosts[hostport] = h
	}
	h.users++
	g.mu.Unlock()
	s.g, s.h, s.hostport = g, h, hostport
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		s.leave()
		return fmt.Errorf("not sent: no free request slot for %s before the budget ran out: %w", hostport, context.Cause(ctx))
	}
	select {
	case g.global <- struct{}{}:
	case <-ctx.Done():
		<-h.sem
		s.leave()
		return fmt.Errorf("not sent: no free request slot before the budget ran out: %w", context.Cause(ctx))
	}
	return nil
}

// slot is one request's hold on a host slot and a global slot of a gate.
type slot struct {
	g        *gate
	h        *hostSlots
	hostport string
	released atomic.Bool
}

// release gives the slots back; only the first call does.
func (s *slot) release() {
	if s.released.Swap(true) {
		return
	}
	<-s.g.global
	<-s.h.sem
	s.leave()
}

// leave drops the request from its host's users, and the host from the gate with the
// last of them (its record, whose slots are all free then, kept for another host).
func (s *slot) leave() {
	s.g.mu.Lock()
	if s.h.users--; s.h.users == 0 {
		delete(s.g.hosts, s.hostport)
		if len(s.g.spare) < maxSpare {
			s.g.spare = append(s.g.spare, s.h)
		}
	}
	s.g.mu.Unlock()
}

// gatedTransport makes every request of an Engine's HTTP client wait for a slot of the
// Engine's gate and hold it until the answer's body is closed.
type gatedTransport struct {
	next *http.Transport
	e    *Engine
}

func (t *gatedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body := &releasingBody{} // holds the slot: one allocation for both
	if err := t.e.gate.acquire(r.Context(), strings.ToLower(r.URL.Host), &body.slot); err != nil {
		if r.Body != nil {
			_ = r.Body.Close() // RoundTrip must close the body, even on errors
		}
		return nil, err
	}
	t.e.reqs.Add(1)
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		body.slot.release()
		return nil, err
	}
	body.ReadCloser = resp.Body
	resp.Body = body
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the transport.
func (t *gatedTransport) CloseIdleConnections() { t.next.CloseIdleConnections() }

// releasingBody gives the request's slot back when the body is closed.
type releasingBody struct {
	io.ReadCloser
	slot slot
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.slot.release()
	return err
}
