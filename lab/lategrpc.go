package lab

import (
	"net"
	"sync"

	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
)

// LateGRPC is a gRPC listener whose A2A service (lf.a2a.v1.A2AService, echo executor)
// is registered, and removed, while the listener stays up: an agent whose gRPC handler
// registers after its card is published, or goes away later. While the service is not
// registered every call gets what grpc-go answers for any unregistered service:
// UNIMPLEMENTED "unknown service lf.a2a.v1.A2AService" (the seed's :9443).
//
// grpc-go cannot add or remove a service on a running server, so each change stops the
// current grpc.Server (closing its connections) and starts a new one on the same socket:
// the port never closes and no other process can take it in between.
type LateGRPC struct {
	// Addr is the listener's host:port, to declare as a GRPC interface.
	Addr string

	lis     net.Listener
	handler a2asrv.RequestHandler
	mu      sync.Mutex
	cur     *generation // nil once closed
	served  bool
	wg      sync.WaitGroup
}

// generation is one grpc.Server on the shared socket.
type generation struct {
	srv *grpc.Server
	lis *handoff
}

// StartLateGRPC starts a LateGRPC on loopback with no A2A service registered.
func StartLateGRPC() (*LateGRPC, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &LateGRPC{Addr: lis.Addr().String(), lis: lis, handler: a2asrv.NewHandler(Echo{})}
	l.mu.Lock()
	l.cur = l.start(false)
	l.mu.Unlock()
	l.wg.Add(1)
	go l.acceptLoop()
	return l, nil
}

// Register serves the A2A service from now on (a no-op when it is served).
func (l *LateGRPC) Register() { l.swap(true) }

// Unregister stops serving the A2A service: calls answer UNIMPLEMENTED again.
func (l *LateGRPC) Unregister() { l.swap(false) }

// Close stops the listener and every connection, and waits for the goroutines.
func (l *LateGRPC) Close() error {
	l.mu.Lock()
	old := l.cur
	l.cur = nil
	l.mu.Unlock()
	err := l.lis.Close()
	if old != nil {
		old.srv.Stop()
	}
	l.wg.Wait()
	return err
}

func (l *LateGRPC) swap(serve bool) {
	l.mu.Lock()
	if l.cur == nil || l.served == serve {
		l.mu.Unlock()
		return
	}
	old := l.cur
	l.cur, l.served = l.start(serve), serve
	l.mu.Unlock()
	old.srv.Stop()
}

// start begins a generation; l.mu is held.
func (l *LateGRPC) start(serve bool) *generation {
	g := &generation{srv: grpc.NewServer(), lis: newHandoff(l.lis.Addr())}
	if serve {
		a2agrpc.NewHandler(l.handler).RegisterWith(g.srv)
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		_ = g.srv.Serve(g.lis)
	}()
	return g
}

// acceptLoop hands each accepted connection to the current generation.
func (l *LateGRPC) acceptLoop() {
	defer l.wg.Done()
	for {
		c, err := l.lis.Accept()
		if err != nil {
			return
		}
		l.handOver(c)
	}
}

func (l *LateGRPC) handOver(c net.Conn) {
	for {
		l.mu.Lock()
		g := l.cur
		l.mu.Unlock()
		if g == nil {
			_ = c.Close()
			return
		}
		select {
		case g.lis.conns <- c:
			return
		case <-g.lis.done: // that generation stopped: offer it to the next one
		}
	}
}

// handoff is a net.Listener fed by LateGRPC's accept loop; closing it does not close
// the shared socket.
type handoff struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newHandoff(addr net.Addr) *handoff {
	return &handoff{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

func (h *handoff) Accept() (net.Conn, error) {
	select {
	case c := <-h.conns:
		return c, nil
	case <-h.done:
		return nil, net.ErrClosed
	}
}

func (h *handoff) Close() error {
	h.once.Do(func() { close(h.done) })
	return nil
}

func (h *handoff) Addr() net.Addr { return h.addr }
