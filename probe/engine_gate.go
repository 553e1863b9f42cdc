package probe

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
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
}

type hostSlots struct {
	sem   chan struct{}
	users int
}

func newGate(global, perHost int) *gate {
	return &gate{global: make(chan struct{}, global), perHost: perHost, hosts: map[string]*hostSlots{}}
}

// acquire waits for a slot for one request to hostport and returns its release
// (idempotent). It fails only when ctx ends first; the error wraps ctx's cause.
func (g *gate) acquire(ctx context.Context, hostport string) (func(), error) {
	g.mu.Lock()
	h := g.hosts[hostport]
	if h == nil {
		h = &hostSlots{sem: make(chan struct{}, g.perHost)}
		g.hosts[hostport] = h
	}
	h.users++
	g.mu.Unlock()
	leave := func() {
		g.mu.Lock()
		if h.users--; h.users == 0 {
			delete(g.hosts, hostport)
		}
		g.mu.Unlock()
	}
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		leave()
		return nil, fmt.Errorf("not sent: no free request slot for %s before the budget ran out: %w", hostport, context.Cause(ctx))
	}
	select {
	case g.global <- struct{}{}:
	case <-ctx.Done():
		<-h.sem
		leave()
		return nil, fmt.Errorf("not sent: no free request slot before the budget ran out: %w", context.Cause(ctx))
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-g.global
			<-h.sem
			leave()
		})
	}, nil
}

// gatedTransport makes every request of an Engine's HTTP client wait for a slot of the
// Engine's gate and hold it until the answer's body is closed.
type gatedTransport struct {
	next *http.Transport
	e    *Engine
}

func (t *gatedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	release, err := t.e.gate.acquire(r.Context(), strings.ToLower(r.URL.Host))
	if err != nil {
		if r.Body != nil {
			_ = r.Body.Close() // RoundTrip must close the body, even on errors
		}
		return nil, err
	}
	t.e.reqs.Add(1)
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the transport.
func (t *gatedTransport) CloseIdleConnections() { t.next.CloseIdleConnections() }

// releasingBody gives the request's slot back when the body is closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
