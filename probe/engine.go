package probe

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// Engine defaults, when no EngineOption says otherwise.
const (
	// DefaultMaxInFlight bounds the requests (HTTP requests and gRPC calls) an Engine has
	// on the wire at once, across every card and interface it probes.
	DefaultMaxInFlight = 64
	// DefaultMaxPerHost bounds the requests an Engine has on the wire at once to one
	// address (host:port).
	DefaultMaxPerHost = 8
	// DefaultIdleTimeout is how long an Engine keeps an unused connection (HTTP
	// keep-alive connection, gRPC channel) open for the next probe.
	DefaultIdleTimeout = 30 * time.Second
	// DefaultMaxIdle bounds the idle HTTP connections and, separately, the idle gRPC
	// channels an Engine keeps; past it the least recently used are closed.
	DefaultMaxIdle = 1024
)

// Engine probes cards and interfaces for as long as it lives, reusing connections per
// origin: one keep-alive HTTP transport per TLS setting, one gRPC channel per address
// and TLS mode, kept warm for the next probe and closed when idle. A global cap and a
// per-host cap bound the requests in flight, whatever the number of cards probed at
// once and the discovery probes of failing interfaces.
//
// An Engine is safe for concurrent use. Close it when done: it closes every connection
// it holds. probe.Card and probe.Interface use a fresh Engine per call and close it
// before returning, so they leave nothing open; a caller that probes repeatedly (a
// fleet loop, an exporter) keeps one Engine and calls its methods.
type Engine struct {
	cfg   engineOptions
	gate  *gate
	grpc  *grpcPool
	work  *workers  // engine_workers.go
	urls  endpoints // the interface URLs read so far (endpoint.go)
	dials atomic.Int64
	reqs  atomic.Int64
	caps  capabilityCache // capability_cache.go

	mu      sync.Mutex
	clients map[connKey]*http.Client
	visited map[addr.Origin]struct{} // HTTP origins probed before (lanes)
	closed  bool
}

// EngineOption configures NewEngine.
type EngineOption func(*engineOptions)

type engineOptions struct {
	maxInFlight int
	maxPerHost  int
	idle        time.Duration
	maxIdle     int
	control     func(network, address string, c syscall.RawConn) error
}

// WithMaxInFlight bounds the requests on the wire at once (DefaultMaxInFlight).
func WithMaxInFlight(n int) EngineOption { return func(o *engineOptions) { o.maxInFlight = n } }

// WithMaxPerHost bounds the requests on the wire at once to one host:port
// (DefaultMaxPerHost).
func WithMaxPerHost(n int) EngineOption { return func(o *engineOptions) { o.maxPerHost = n } }

// WithIdleTimeout sets how long unused connections stay open (DefaultIdleTimeout).
func WithIdleTimeout(d time.Duration) EngineOption { return func(o *engineOptions) { o.idle = d } }

// WithMaxIdle bounds the idle HTTP connections and the idle gRPC channels kept
// (DefaultMaxIdle each).
func WithMaxIdle(n int) EngineOption { return func(o *engineOptions) { o.maxIdle = n } }

// WithDialControl runs fn on every connection the Engine opens, after the address is
// resolved and before the connection is made (net.Dialer.Control): an error refuses the
// dial. This is where a dial policy (no link-local or metadata addresses) plugs in; the
// card fetches made through Engine.HTTPClient are covered too.
func WithDialControl(fn func(network, address string, c syscall.RawConn) error) EngineOption {
	return func(o *engineOptions) { o.control = fn }
}

// NewEngine returns an Engine. It opens nothing until it probes.
func NewEngine(opts ...EngineOption) *Engine {
	o := engineOptions{maxInFlight: DefaultMaxInFlight, maxPerHost: DefaultMaxPerHost,
		idle: DefaultIdleTimeout, maxIdle: DefaultMaxIdle}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxInFlight <= 0 {
		o.maxInFlight = DefaultMaxInFlight
	}
	if o.maxPerHost <= 0 {
		o.maxPerHost = DefaultMaxPerHost
	}
	if o.idle <= 0 {
		o.idle = DefaultIdleTimeout
	}
	if o.maxIdle <= 0 {
		o.maxIdle = DefaultMaxIdle
	}
	e := &Engine{cfg: o, gate: newGate(o.maxInFlight, o.maxPerHost), clients: map[connKey]*http.Client{},
		visited: map[addr.Origin]struct{}{}}
	e.grpc = newGRPCPool(e, o.idle, o.maxIdle)
	e.work = newWorkers(o.idle)
	e.urls = endpoints{m: map[endpointKey]*parsedEndpoint{}, max: o.maxIdle}
	return e
}

// ErrEngineClosed is the error of a probe request made after Engine.Close.
var ErrEngineClosed = errors.New("probe engine closed")

// Close closes every connection the Engine holds. Probes still running fail; call it
// once they returned. It is safe to call more than once.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	clients := e.clients
	e.clients = nil
	e.mu.Unlock()
	e.work.close()
	for _, c := range clients {
		c.CloseIdleConnections()
	}
	return e.grpc.close()
}

// Stats are an Engine's counters since it was created.
type Stats struct {
	// Dials is the number of TCP connections the Engine opened.
	Dials int64
	// Requests is the number of HTTP requests and gRPC calls it made.
	Requests int64
}

// Stats returns the Engine's counters.
func (e *Engine) Stats() Stats { return Stats{Dials: e.dials.Load(), Requests: e.reqs.Load()} }

// Card probes the interfaces of c, in parallel, and returns the results in card order,
// reusing the Engine's connections: the first addr.DefaultMaxInterfaces (addr.Conn.MaxInterfaces)
// only, so a result list may be shorter than c.Interfaces (Skipped says how many were
// left out). ctx bounds the whole run; WithTimeout bounds each interface. The headers
// of WithConn go only to the card's origin and its CredentialHosts.
func (e *Engine) Card(ctx context.Context, c *card.Card, opts ...Option) []Result {
	return e.card(ctx, c, opts, nil)
}

// laneHook is called in an interface's lane before its lookup (turns: the lane's
// requests take turns on one connection); the func it returns, if any, runs in the
// lane right after that lookup. Check hangs the capability calls on it.
type laneHook func(n int, turns bool) (after func())

// card is Card, with hook called for each interface in its lane.
func (e *Engine) card(ctx context.Context, c *card.Card, opts []Option, hook laneHook) []Result {
	if c == nil {
		return nil
	}
	o := newOptions(opts)
	ifaces := c.Interfaces
	if n := o.conn.Interfaces(); len(ifaces) > n {
		ifaces = ifaces[:n]
	}
	local := localInterfaces(ifaces, o.via) // via.go
	o.siblings = make([]string, 0, len(ifaces))
	for _, i := range local {
		o.siblings = append(o.siblings, i.URL)
	}
	eps := e.urls.read(local)            // endpoint.go
	o.cardCredentials(c, e.urls.address) // after read: the card's addresses are in the memo
	results := make([]Result, len(ifaces))
	lanes := e.lanes(local, eps)
	var sem chan struct{} // bounds the lanes at once, when there are more than maxParallel
	if len(lanes) > maxParallel {
		sem = make(chan struct{}, maxParallel)
	}
	// When every lane starts now (no more of them than maxParallel), the first
	// interface of each has the same budget from now on: one deadline for all of them
	// instead of a timer each. Interfaces that take their turn after another get their
	// own.
	var budget context.Context
	if sem == nil {
		var cancel context.CancelFunc
		budget, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	probeLane := func(l lane) {
		start := ctx.Err() == nil
		if sem != nil {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
				start = true
			case <-ctx.Done():
				start = false
			}
		}
		if !start {
			for _, n := range l.idx {
				results[n] = Result{Interface: ifaces[n], Outcome: wire.Timeout,
					Detail: "not probed: " + context.Cause(ctx).Error()}
			}
			return
		}
		for k, n := range l.idx {
			var after func()
			if hook != nil {
				after = hook(n, l.turns)
			}
			oi := *o // the options are read once per card; each run has its own copy
			var res Result
			if k == 0 && budget != nil {
				res = e.probeWithin(budget, local[n], &oi, eps[n])
			} else {
				res = e.probe(ctx, local[n], &oi, eps[n])
			}
			results[n] = declared(res, ifaces[n])
			if after != nil {
				after()
			}
		}
	}
	if len(lanes) == 0 {
		return results
	}
	var wg sync.WaitGroup
	for _, lane := range lanes[:len(lanes)-1] {
		wg.Add(1)
		e.work.run(func() {
			defer wg.Done()
			probeLane(lane)
		})
	}
	probeLane(lanes[len(lanes)-1]) // the last in this goroutine: one handoff less
	wg.Wait()
	return results
}

// lanes groups the indexes of ifaces into the lanes Card probes them in, which run in
// parallel. HTTP/1.1 carries one request at a time per connection, so interfaces of
// one origin probed in parallel need a connection each. The first time an Engine
// probes an origin (a one-shot probe, a fleet round that visits each target once), the
// HTTP interfaces (JSON-RPC, HTTP+JSON) of that origin (scheme, host and port) share a
// lane and take turns on one keep-alive connection, the card fetch's when the card
// came from there: a second connection would cost a round trip to open before its
// request went out, as long as the wait for the first answer, and a dial, an accept
// and a close on both sides. Afterwards (an exporter, a fleet loop on a long-lived
// Engine) each interface has a lane of its own, over the connections kept warm. gRPC
// interfaces, which multiplex their calls on one channel per address, and addresses
// that do not parse always get a lane of their own.
func (e *Engine) lanes(ifaces []card.Interface, eps []*parsedEndpoint) []lane {
	out := make([]lane, 0, len(ifaces))
	byOrigin := map[addr.Origin]int{}
	for n, iface := range ifaces {
		b, _ := addr.CanonicalBinding(iface.Binding)
		if b == a2a.TransportProtocolJSONRPC || b == a2a.TransportProtocolHTTPJSON {
			if eps[n].err == nil {
				origin := eps[n].ep.addr.Origin(false) // the scheme decides; card, the one address model
				if l, ok := byOrigin[origin]; ok {
					out[l].idx = append(out[l].idx, n)
					continue
				}
				if e.firstVisit(origin) {
					byOrigin[origin] = len(out)
					out = append(out, lane{idx: []int{n}, turns: true})
					continue
				}
			}
		}
		out = append(out, lane{idx: []int{n}})
	}
	return out
}

// lane is the indexes of interfaces probed one after the other; turns marks the lane
// of an origin visited for the first time, whose requests take turns on one connection.
type lane struct {
	idx   []int
	turns bool
}

// firstVisit reports whether origin is new to the Engine, and remembers it. The memory
// is bounded by WithMaxIdle (the connections it could hold warm): when full it starts
// over.
func (e *Engine) firstVisit(origin addr.Origin) bool {
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

// Interface probes one declared interface as probe.Interface does, reusing the
// Engine's connections.
func (e *Engine) Interface(ctx context.Context, iface card.Interface, opts ...Option) Result {
	return e.probe(ctx, iface, newOptions(opts), nil)
}

// probe runs one interface's probe with o on the Engine's connections; ep is its URL
// as parseEndpoint read it, or nil to read it here.
func (e *Engine) probe(ctx context.Context, iface card.Interface, o *options, ep *parsedEndpoint) Result {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	return e.probeWithin(ctx, iface, o, ep)
}

// probeWithin is probe with the interface's budget already in ctx.
func (e *Engine) probeWithin(ctx context.Context, iface card.Interface, o *options, ep *parsedEndpoint) Result {
	o.engine = e
	r := newRun(iface, o)
	r.parsed = ep
	return r.traced(ctx) // trace.go
}

// HTTPClient returns the Engine's keep-alive client for the TLS settings of opts
// (WithConn's Insecure, RootCAs), under the Engine's caps and dial control, for
// fetching cards over the connections the probes use (card.WithHTTPClient). It follows
// no redirect on its own; card.Load sets its own redirect policy.
func (e *Engine) HTTPClient(opts ...Option) *http.Client {
	return e.client(newOptions(opts))
}

// connKey tells HTTP transports and gRPC channels with different TLS settings or dial
// policies apart: a connection is reused only by probes that would have dialled it.
type connKey struct {
	insecure bool
	roots    *x509.CertPool
	dial     *addr.DialPolicy
}

func (o *options) connKey() connKey {
	return connKey{insecure: o.conn.Insecure, roots: o.conn.RootCAs, dial: o.conn.Dial}
}

// client returns the keep-alive client of o's TLS settings, creating it once.
func (e *Engine) client(o *options) *http.Client {
	key := o.connKey()
	e.mu.Lock()
	defer e.mu.Unlock()
	if c := e.clients[key]; c != nil {
		return c
	}
	c := &http.Client{
		Transport:     &gatedTransport{next: e.transport(o), e: e},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if e.closed {
		// Closed: hand out a client that fails, rather than one nobody will close.
		c.Transport = closedTransport{}
		return c
	}
	e.clients[key] = c
	return c
}

// dial opens one TCP connection under the dial policy's Control (a name that resolves
// to a refused address, 169.254.169.254 say, is refused at connect time) and the
// Engine's own dial control, and counts it.
func (e *Engine) dial(ctx context.Context, network, addr string, policy *addr.DialPolicy) (net.Conn, error) {
	d := policy.Dialer()
	if ctl := e.cfg.control; ctl != nil {
		d.Control = func(network, address string, c syscall.RawConn) error {
			if err := policy.Control(network, address, c); err != nil {
				return err
			}
			return ctl(network, address, c)
		}
	}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	e.dials.Add(1)
	return c, nil
}

type closedTransport struct{}

func (closedTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, ErrEngineClosed }
