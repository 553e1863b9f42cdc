package server

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// connStates follows the HTTP listener's connections (http.Server.ConnState) for
// Shutdown's quiescence: which are open, since when each is idle between requests, and
// when the last connection or request arrived.
type connStates struct {
	mu          sync.Mutex
	conns       map[net.Conn]connState
	lastArrival time.Time
}

type connState struct {
	st    http.ConnState
	since time.Time
}

// track is the http.Server's ConnState hook.
func (c *connStates) track(conn net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conns == nil {
		c.conns = make(map[net.Conn]connState)
	}
	now := time.Now()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(c.conns, conn)
		c.lastArrival = now // its client may be about to reconnect
		return
	case http.StateNew:
		c.lastArrival = now
	}
	c.conns[conn] = connState{st: st, since: now}
}

// arrived records a request's arrival.
func (c *connStates) arrived() {
	c.mu.Lock()
	c.lastArrival = time.Now()
	c.mu.Unlock()
}

// connSnapshot is the HTTP listener's connections at one moment.
type connSnapshot struct {
	open         int           // connections open
	fresh        int           // accepted, no request read yet
	recentlyIdle int           // idle for less than the recent bound: a busy client is about to send on it
	quiet        time.Duration // since the last connection or request arrived or a connection closed
}

// snapshot describes the connections now; recent bounds recentlyIdle.
func (c *connStates) snapshot(recent time.Duration) connSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	s := connSnapshot{open: len(c.conns), quiet: now.Sub(c.lastArrival)}
	for _, cs := range c.conns {
		switch {
		case cs.st == http.StateNew:
			s.fresh++
		case cs.st == http.StateIdle && now.Sub(cs.since) < recent:
			s.recentlyIdle++
		}
	}
	return s
}

// closeOnce is a listener whose Close closes it once; later calls return nil (Shutdown
// closes the HTTP listener before http.Server.Shutdown does).
type closeOnce struct {
	net.Listener
	once sync.Once
	err  error
}

// Close closes the listener the first time.
func (l *closeOnce) Close() error {
	l.once.Do(func() { l.err = l.Listener.Close() })
	return l.err
}

// connTracker is a listener that remembers the connections it accepted until they are
// closed, so that Shutdown can close, at its deadline, those grpc-go's Stop does not: a
// connection still waiting for its HTTP/2 preface (an idle or half-open peer) is not
// yet one of grpc-go's transports.
type connTracker struct {
	net.Listener
	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

// trackConns wraps l (nil stays nil).
func trackConns(l net.Listener) net.Listener {
	if l == nil {
		return nil
	}
	return &connTracker{Listener: l, conns: make(map[*trackedConn]struct{})}
}

// Accept tracks every accepted connection.
func (t *connTracker) Accept() (net.Conn, error) {
	c, err := t.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, t: t}
	t.mu.Lock()
	t.conns[tc] = struct{}{}
	t.mu.Unlock()
	return tc, nil
}

// closeAll closes every tracked connection still open and reports how many there were.
func (t *connTracker) closeAll() int {
	t.mu.Lock()
	cs := make([]*trackedConn, 0, len(t.conns))
	for c := range t.conns {
		cs = append(cs, c)
	}
	t.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
	return len(cs)
}

type trackedConn struct {
	net.Conn
	t    *connTracker
	once sync.Once
}

// Close closes the connection and forgets it.
func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.t.mu.Lock()
		delete(c.t.conns, c)
		c.t.mu.Unlock()
	})
	return c.Conn.Close()
}
