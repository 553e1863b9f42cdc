package server

import (
	"net"
	"sync"
)

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
