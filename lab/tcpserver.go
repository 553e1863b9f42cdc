package lab

import (
	"net"
	"sync"
	"sync/atomic"
)

// tcpServer is a loopback TCP listener that tracks its connections, so that closing it
// ends every connection and waits for every goroutine it started: the skeleton of the
// lab's raw listeners, proxies and hostile peers.
type tcpServer struct {
	l     net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{} // nil once closed
	wg    sync.WaitGroup

	accepted atomic.Int64 // connections accepted so far
	serving  atomic.Int64 // accepted connections whose handler still runs
}

// listenTCP opens a tcpServer on 127.0.0.1 with a free port.
func listenTCP() (*tcpServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &tcpServer{l: l, conns: map[net.Conn]struct{}{}}, nil
}

// addr is the listener's host:port.
func (s *tcpServer) addr() string { return s.l.Addr().String() }

// track adds cs to the connections closed by close; once the server is closed it closes
// them instead and reports false.
func (s *tcpServer) track(cs ...net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns == nil {
		for _, c := range cs {
			_ = c.Close()
		}
		return false
	}
	for _, c := range cs {
		s.conns[c] = struct{}{}
	}
	return true
}

// untrack closes c and forgets it.
func (s *tcpServer) untrack(c net.Conn) {
	_ = c.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// spawn runs f in a goroutine that close waits for.
func (s *tcpServer) spawn(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// serve accepts connections until the listener closes, running handle on each in its
// own goroutine; the connection is tracked while handle runs and closed after it.
func (s *tcpServer) serve(handle func(net.Conn)) {
	s.spawn(func() {
		for {
			c, err := s.l.Accept()
			if err != nil {
				return
			}
			if !s.track(c) {
				return
			}
			s.accepted.Add(1)
			s.serving.Add(1)
			s.spawn(func() {
				defer s.serving.Add(-1)
				defer s.untrack(c)
				handle(c)
			})
		}
	})
}

// close stops accepting, closes every tracked connection and waits for the goroutines.
// It returns the listener's close error.
func (s *tcpServer) close() error {
	err := s.l.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.conns = nil
	s.mu.Unlock()
	s.wg.Wait()
	return err
}
