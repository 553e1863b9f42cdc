package guard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/accesslog"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/signature"
)

// Guard is a running front for one upstream agent. Create it with New, then Start;
// Shutdown stops it.
type Guard struct {
	o         options
	upstream  string   // what card.Load reads: the base URL or the card URL given
	origin    *url.URL // where requests are proxied
	lis       net.Listener
	srv       *http.Server
	transport *http.Transport // HTTP/1.1, and HTTP/2 over TLS
	h2c       *h2cTransport   // gRPC to an http:// upstream
	engine    *probe.Engine   // the rounds' probes: connections and capability verdicts kept between rounds
	client    *http.Client
	proxy     http.Handler
	ownCards  map[string]bool // cleaned paths where the guarded card is read (paths.go)
	inFlight  atomic.Int64    // proxied requests now, bounded by WithMaxProxied

	snap     atomic.Pointer[snapshot]
	stopping atomic.Bool
	mu       sync.Mutex // guards started and cancel
	started  bool
	cancel   context.CancelFunc
	loopDone chan struct{}
	served   chan error
	stopOnce sync.Once
}

// New checks the upstream URL (the agent's base URL, or its card URL) and opens the
// listener. Nothing is fetched or probed before Start.
func New(upstream string, opts ...Option) (*Guard, error) {
	o := newOptions(opts)
	g, err := newGuard(upstream, o)
	if err != nil {
		if o.listener != nil {
			_ = o.listener.Close()
		}
		return nil, err
	}
	return g, nil
}

func newGuard(upstream string, o options) (*Guard, error) {
	upstream = strings.TrimSpace(upstream)
	u, err := addr.ParseAddress(upstream, a2a.TransportProtocolJSONRPC)
	if err != nil || u.Local() || u.UserInfo {
		return nil, fmt.Errorf("guard: upstream %q must be the agent's http:// or https:// base URL (or its card URL)", upstream)
	}
	if o.interval <= 0 {
		return nil, fmt.Errorf("guard: interval %s must be positive", o.interval)
	}
	if o.signing != nil {
		if !o.normalize {
			return nil, errors.New("guard: WithCardSigning re-signs the cards WithNormalize rewrites; without it the upstream card is served unchanged")
		}
		if err := o.signing.prepare(); err != nil {
			return nil, err
		}
	}
	if o.requireSig {
		// checks the options (a jku origin that is not https://host[:port]) before anything
		// listens: a card built by hand has no signatures to verify
		if _, err := signature.VerifySignatures(context.Background(), &card.Card{}, o.verify...); err != nil {
			return nil, fmt.Errorf("guard: WithRequireSignature: %w", err)
		}
	}
	lis := o.listener
	if lis == nil {
		if lis, err = net.Listen("tcp", o.listenAddr); err != nil {
			return nil, fmt.Errorf("guard: listen on %s: %w", o.listenAddr, err)
		}
	}
	if sameSocket(lis.Addr(), u) {
		_ = lis.Close()
		return nil, fmt.Errorf("guard: upstream %s is the guard's own listen address %s", upstream, lis.Addr())
	}
	g := &Guard{
		o: o, upstream: upstream, origin: &url.URL{Scheme: u.Scheme, Host: u.Authority()},
		lis: lis, transport: newTransport(), h2c: newH2CTransport(), engine: probe.NewEngine(), loopDone: make(chan struct{}), served: make(chan error, 1),
		ownCards: ownCardPaths(u.Path),
	}
	g.client = &http.Client{Transport: g.transport}
	var grpcRT http.RoundTripper = g.h2c
	if u.Scheme == "https" {
		grpcRT = g.transport // HTTP/2 negotiated by ALPN
	}
	g.proxy = newProxy(g.origin, g.transport, grpcRT, o.logger)
	var h http.Handler = g.Handler()
	if o.accessLog != nil {
		h = accesslog.HTTP(h, o.accessLog)
	}
	h = telemetry.Handler(h, "a2abind.guard") // server spans continuing the client's trace
	g.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// A request (headers and body) must arrive within ReadTimeout, so a client
		// trickling its body cannot hold a proxied connection; answers (SSE streams,
		// slow SendMessage) are not bounded by it.
		ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute,
		Protocols:   new(http.Protocols),
		ErrorLog:    slog.NewLogLogger(o.logger.Handler(), slog.LevelDebug),
	}
	// HTTP/1.1 for JSON-RPC, HTTP+JSON and SSE; cleartext HTTP/2 (prior knowledge) for
	// gRPC clients of an agent that serves gRPC on its HTTP port.
	g.srv.Protocols.SetHTTP1(true)
	g.srv.Protocols.SetUnencryptedHTTP2(true)
	return g, nil
}

// sameSocket reports whether the upstream URL names the listener itself.
func sameSocket(la net.Addr, up addr.Address) bool {
	ta, ok := la.(*net.TCPAddr)
	if !ok {
		return false
	}
	lis := addr.Address{Host: ta.IP.String(), Port: strconv.Itoa(ta.Port)}
	return up.SameSocket(lis) || lis.Wildcard() && lis.Port == up.Port && up.Loopback()
}

// Handler routes the guard's own paths (the card in every spelling, /healthz,
// /readyz, the JWKS) and proxies the rest to the upstream. No card the guard has not
// checked passes: a card path of another agent answers 404, and the extended card
// (HTTP+JSON, gRPC and JSON-RPC) passes only while the upstream card is published
// unchanged. At most WithMaxProxied requests are proxied at once; beyond, 503.
func (g *Guard) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == server.PathHealthz: // liveness: 200 while the guard serves HTTP
			serveHealthz(w, r)
			return
		case p == server.PathReadyz: // readiness: 200 while the card is published, 503 otherwise
			g.serveReadyz(w, r)
			return
		case g.o.signing != nil && g.o.signing.signer.JWKSPath() != "" && p == g.o.signing.signer.JWKSPath():
			g.o.signing.signer.ServeJWKS(w, r, g.cacheControl())
			return
		}
		rt := g.route(r)
		switch rt {
		case routeOwnCard:
			g.serveCard(w, r)
			return
		case routeForeign:
			g.serveForeignCard(w, r)
			return
		}
		if n := g.inFlight.Add(1); n > int64(g.o.maxProxied) {
			g.inFlight.Add(-1)
			g.refuse(w, r, fmt.Sprintf("more than %d requests in flight through the guard", g.o.maxProxied))
			return
		}
		defer g.inFlight.Add(-1)
		why := g.extendedPassable()
		if rt == routeProxy && why != "" {
			var err error
			if rt, err = inspect(r); err != nil {
				http.Error(w, "a2abind guard: "+err.Error(), http.StatusRequestEntityTooLarge)
				return
			}
		}
		if rt == routeExtended && why != "" {
			g.refuse(w, r, "extended agent card withheld: "+why)
			return
		}
		g.proxy.ServeHTTP(w, r)
	})
}

// Addr is the guard's listen address (host:port).
func (g *Guard) Addr() string { return g.lis.Addr().String() }

// URL is the guard's base URL (the card is at URL + card.WellKnownPath).
func (g *Guard) URL() string { return "http://" + g.Addr() }

// State returns what the guard publishes after its last round.
func (g *Guard) State() State {
	if s := g.snap.Load(); s != nil {
		return s.State
	}
	return State{Reason: "the first check of the declared interfaces has not finished"}
}

// ErrStarted is returned by Start when the guard was started already.
var ErrStarted = errors.New("guard: already started")

// Start serves the listener, runs the first round (fetch the upstream card, probe it,
// publish or withhold) before it returns, and then a round every interval until
// Shutdown. The card is withheld until that first round passes; a withheld card is not
// an error (State says why). ctx bounds the first round only.
func (g *Guard) Start(ctx context.Context) error {
	g.mu.Lock()
	if g.started {
		g.mu.Unlock()
		return ErrStarted
	}
	loopCtx, cancel := context.WithCancel(context.Background())
	g.started, g.cancel = true, cancel
	go func() { g.served <- g.srv.Serve(g.lis) }()
	g.mu.Unlock()
	first, stopFirst := context.WithCancel(loopCtx)
	stop := context.AfterFunc(ctx, stopFirst)
	g.round(first)
	stop()
	stopFirst()
	go g.loop(loopCtx)
	return nil
}

// loop runs a round every interval until ctx ends.
func (g *Guard) loop(ctx context.Context) {
	defer close(g.loopDone)
	t := time.NewTicker(g.o.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			g.round(ctx)
		}
	}
}

// Shutdown withdraws the card and readiness first, stops the rounds, then lets
// proxied requests drain (bounded by ctx and WithShutdownTimeout) before it closes
// every connection.
func (g *Guard) Shutdown(ctx context.Context) error {
	var err error
	g.stopOnce.Do(func() {
		g.stopping.Store(true)
		g.mu.Lock()
		started, cancel := g.started, g.cancel
		g.started = true // a Start after Shutdown is refused
		g.mu.Unlock()
		if !started {
			err = g.lis.Close()
			g.closeIdle()
			return
		}
		cancel()
		<-g.loopDone
		sctx, cancel := context.WithTimeout(ctx, g.o.shutdownTimeout)
		defer cancel()
		if err = g.srv.Shutdown(sctx); err != nil {
			err = errors.Join(err, g.srv.Close())
		}
		if serveErr := <-g.served; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
			err = errors.Join(err, serveErr)
		}
		g.closeIdle()
	})
	return err
}

func (g *Guard) closeIdle() {
	g.transport.CloseIdleConnections()
	g.h2c.CloseIdleConnections()
	_ = g.engine.Close() // no round runs any more
}

// cardURL is where the upstream card is read, for messages.
func (g *Guard) cardURL() string { return card.CardURL(g.upstream) }
