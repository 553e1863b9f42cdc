package probe

import (
	"container/list"
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/wire"
)

// grpcKey names one pooled gRPC channel: an address, plaintext or TLS, and the TLS
// and dial settings.
type grpcKey struct {
	addr string
	tls  bool
	connKey
}

// grpcChan is a pooled channel and its bookkeeping (guarded by the pool's mutex).
type grpcChan struct {
	key      grpcKey
	conn     *grpc.ClientConn
	users    int
	lastUsed time.Time
	pooled   bool          // still in the pool's map; false once dropped
	idle     *list.Element // in the pool's idle list while users == 0 and pooled
	refused  *refusal      // the dial policy's last refusal on this channel
}

// refusal holds the dial policy's refusal of a channel's address, which grpc-go would
// otherwise report only as UNAVAILABLE text.
type refusal struct {
	mu  sync.Mutex
	err error
}

func (r *refusal) set(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
}

// refusal returns the dial policy's refusal of ch's address, if a dial was refused.
func (ch *grpcChan) refusal() error {
	ch.refused.mu.Lock()
	defer ch.refused.mu.Unlock()
	return ch.refused.err
}

// grpcPool keeps one gRPC channel per address and TLS mode for an Engine. A channel is
// kept only after a gRPC server answered on it: a channel whose call failed at the
// connection level is closed once its last user is done, so the next probe dials
// afresh and sees the failure as a fresh channel would (no cached backoff state). Idle
// channels are closed after the idle timeout and, past maxIdle, least recently used
// first.
type grpcPool struct {
	e       *Engine
	idleFor time.Duration
	maxIdle int

	mu     sync.Mutex
	chans  map[grpcKey]*grpcChan
	idle   *list.List // of *grpcChan, least recently used first
	timer  *time.Timer
	closed bool
}

func newGRPCPool(e *Engine, idleFor time.Duration, maxIdle int) *grpcPool {
	return &grpcPool{e: e, idleFor: idleFor, maxIdle: maxIdle, chans: map[grpcKey]*grpcChan{}, idle: list.New()}
}

// get returns the pooled channel for key, or a new one, marked in use.
func (p *grpcPool) get(key grpcKey, o *options) (*grpcChan, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrEngineClosed
	}
	var stale *grpc.ClientConn
	if ch := p.chans[key]; ch != nil {
		if s := ch.conn.GetState(); s != connectivity.TransientFailure && s != connectivity.Shutdown {
			p.use(ch)
			p.mu.Unlock()
			return ch, nil
		}
		if p.drop(ch) { // a failed channel would answer from its backoff state: start afresh
			stale = ch.conn
		}
	}
	refused := &refusal{}
	conn, err := p.dial(key, o, refused)
	if err == nil {
		ch := &grpcChan{key: key, conn: conn, pooled: true, refused: refused}
		p.chans[key] = ch
		p.use(ch)
		p.mu.Unlock()
		closeAll(stale)
		return ch, nil
	}
	p.mu.Unlock()
	closeAll(stale)
	return nil, err
}

// dial creates a channel (grpc.NewClient connects lazily, on the first call). Its dials
// go through o's dial policy; a refusal is kept in refused.
func (p *grpcPool) dial(key grpcKey, o *options, refused *refusal) (*grpc.ClientConn, error) {
	creds := insecure.NewCredentials()
	if key.tls {
		creds = credentials.NewTLS(o.tlsConfig("")) // grpc-go takes the server name from the address
	}
	return grpc.NewClient("passthrough:///"+key.addr, append(wire.GRPCDialOptions(func(ctx context.Context, hostport string) (net.Conn, error) {
		c, err := p.e.dial(ctx, "tcp", hostport, o.conn.Dial)
		if errors.Is(err, addr.ErrRefusedAddress) {
			refused.set(err)
		}
		return c, err
	}),
		grpc.WithTransportCredentials(creds),
		grpc.WithUserAgent("a2abind-probe"),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxBody)),
		grpc.WithMaxHeaderListSize(maxBody),
		grpc.WithIdleTimeout(p.idleFor), // the socket closes when idle even before the pool drops the channel
	)...)
}

// use marks ch in use (mu held).
func (p *grpcPool) use(ch *grpcChan) {
	ch.users++
	if ch.idle != nil {
		p.idle.Remove(ch.idle)
		ch.idle = nil
	}
}

// put gives ch back. answered says whether a gRPC server answered the call: only then
// is the channel kept for the next probe.
func (p *grpcPool) put(ch *grpcChan, answered bool) {
	p.mu.Lock()
	ch.users--
	ch.lastUsed = time.Now()
	if !answered {
		p.drop(ch)
	}
	var closing []*grpc.ClientConn
	switch {
	case !ch.pooled && ch.users == 0:
		closing = append(closing, ch.conn)
	case ch.pooled && ch.users == 0:
		ch.idle = p.idle.PushBack(ch)
		for p.idle.Len() > p.maxIdle {
			old := p.idle.Front().Value.(*grpcChan)
			p.drop(old)
			closing = append(closing, old.conn)
		}
		p.schedule()
	}
	p.mu.Unlock()
	closeAll(closing...)
}

// drop takes ch out of the pool (mu held). It reports whether ch is unused, so that the
// caller must close it; a channel still in use is closed by its last put.
func (p *grpcPool) drop(ch *grpcChan) bool {
	if ch.pooled {
		ch.pooled = false
		if p.chans[ch.key] == ch {
			delete(p.chans, ch.key)
		}
		if ch.idle != nil {
			p.idle.Remove(ch.idle)
			ch.idle = nil
		}
	}
	return ch.users == 0
}

// schedule arms the idle sweep if it is not armed (mu held).
func (p *grpcPool) schedule() {
	if p.timer == nil && !p.closed && p.idle.Len() > 0 {
		p.timer = time.AfterFunc(p.idleFor, p.sweep)
	}
}

// sweep closes the channels idle for longer than the idle timeout and re-arms itself
// while idle channels remain.
func (p *grpcPool) sweep() {
	p.mu.Lock()
	p.timer = nil
	var closing []*grpc.ClientConn
	now := time.Now()
	for e := p.idle.Front(); e != nil; {
		ch := e.Value.(*grpcChan)
		e = e.Next()
		if now.Sub(ch.lastUsed) < p.idleFor {
			break // the list is in last-use order
		}
		p.drop(ch)
		closing = append(closing, ch.conn)
	}
	if f := p.idle.Front(); f != nil && !p.closed {
		wait := p.idleFor - now.Sub(f.Value.(*grpcChan).lastUsed)
		p.timer = time.AfterFunc(max(wait, time.Millisecond), p.sweep)
	}
	p.mu.Unlock()
	closeAll(closing...)
}

// close closes every channel, in use or not, and stops the sweep.
func (p *grpcPool) close() error {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	var conns []*grpc.ClientConn
	for _, ch := range p.chans {
		ch.pooled = false
		conns = append(conns, ch.conn)
	}
	clear(p.chans)
	p.idle.Init()
	p.mu.Unlock()
	var errs []error
	for _, c := range conns {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

func closeAll(conns ...*grpc.ClientConn) {
	for _, c := range conns {
		if c != nil {
			_ = c.Close()
		}
	}
}
