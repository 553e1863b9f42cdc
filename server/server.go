package server

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/accesslog"
	"github.com/a2abind/a2abind/internal/telemetry"
)

// Server is one A2A agent served on several bindings at once, whose card is published
// only while every interface it declares answers on the wire.
type Server struct {
	o   options
	log *slog.Logger

	tlsCfg  *tls.Config
	httpLis net.Listener
	grpcLis net.Listener
	httpEP  endpoint
	grpcEP  endpoint
	served  []served

	handler  a2asrv.RequestHandler
	execs    *executions   // the executor, bound to the server's lifetime
	httpSrv  *http.Server  // nil with WithMounted
	grpcSrv  *grpc.Server  // the own gRPC server; nil with WithMounted or without gRPC
	root     http.Handler  // Handler
	store    *boundedStore // the default task store (unused when the caller brings one)
	hasGRPC  bool          // gRPC is served on a listener of its own (the server's or the caller's)
	httpAddr net.Addr      // where HTTP is served
	grpcAddr net.Addr      // where gRPC is served on a listener of its own; nil for none

	capabilities *a2a.AgentCapabilities // what the published card declares, checked on every call; nil: not checked

	cardJSON     []byte
	card         *card.Card
	local        map[string]card.Interface // each declared interface at its local address (localOf)
	etag         string
	lastModified time.Time
	cacheCtrl    string
	grpcReady    atomic.Bool   // the gRPC services are registered (gRPC on the HTTP port may be served)
	ready        atomic.Bool   // the self-check passed and shutdown has not started
	draining     atomic.Bool   // Shutdown began: new HTTP/1.x requests are refused (quiesceHTTP)
	httpClosed   chan struct{} // closed once Shutdown closed the HTTP listener: held refusals are answered
	conns        connStates    // the HTTP listener's connections, by state
	httpInFlight atomic.Int64  // HTTP requests being handled
	started      atomic.Bool
	stopping     atomic.Bool
	stop         chan struct{} // closed when Shutdown starts
	done         chan struct{} // closed when Shutdown finished
	serveErrMu   sync.Mutex
	serveErr     error
	wg           sync.WaitGroup
	stopOnce     sync.Once
	shutOnce     sync.Once
	shutErr      error
}

// New assembles the server: it binds the listeners (or takes those of WithListeners;
// with WithMounted it binds nothing and the caller's servers serve Handler or Mount and
// RegisterGRPC),
// derives the card from the registered bindings or verifies the hand-written one
// against them (the publish-time invariant), and returns without serving. A card that
// declares an interface this server does not serve at that address is refused with
// *BindingError (errors.Is ErrCardMismatch), and the listeners are released.
func New(executor a2asrv.AgentExecutor, opts ...Option) (*Server, error) {
	if executor == nil {
		return nil, errorf("nil AgentExecutor")
	}
	o := options{
		httpAddr: DefaultHTTPAddr, shutdownTimeout: DefaultShutdownTimeout,
		selfCheck: DefaultSelfCheckTimeout, cardMaxAge: DefaultCardMaxAge,
		taskLimits: taskLimits{maxAge: DefaultTaskMaxAge, maxCount: DefaultTaskMaxCount, maxBytes: DefaultTaskMaxBytes},
	}
	for _, opt := range opts {
		opt(&o)
	}
	noInfo := o.name == "" || o.description == "" || o.version == ""
	if o.cardJSON == nil && o.agentCard == nil && noInfo {
		return nil, errorf("no agent info: pass WithAgentInfo(name, description, version, skills...) for the derived card, or a whole card (WithAgentCard, WithCardJSON)")
	}
	if o.extendedDerived && noInfo {
		return nil, errorf("no agent info for the derived extended card: pass WithAgentInfo(name, description, version, skills...) with WithDerivedExtendedCard")
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	if o.shutdownTimeout <= 0 {
		o.shutdownTimeout = DefaultShutdownTimeout
	}
	if o.selfCheck <= 0 {
		o.selfCheck = DefaultSelfCheckTimeout
	}
	if o.maxRequestBytes <= 0 {
		o.maxRequestBytes = DefaultMaxRequestBytes
	}
	if err := o.taskLimits.validate(); err != nil {
		return nil, err
	}
	srv := &Server{o: o, log: o.logger, stop: make(chan struct{}), done: make(chan struct{}), httpClosed: make(chan struct{})}
	if err := srv.init(executor); err != nil {
		srv.closeListeners()
		return nil, err
	}
	return srv, nil
}

func (srv *Server) init(executor a2asrv.AgentExecutor) error {
	o := &srv.o
	if err := validateTenant(o.tenant); err != nil {
		return err
	}
	if o.tenant != "" && o.v03 {
		return errorf("a tenant cannot be served on the v0.3 wire: v0.3 cards and requests have no tenant field (drop the v0.3 option or the tenant)")
	}
	switch {
	case o.certFile != "" || o.keyFile != "":
		cert, err := tls.LoadX509KeyPair(o.certFile, o.keyFile)
		if err != nil {
			return errorf("TLS certificate: %v", err)
		}
		srv.tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	case o.tlsConfig != nil:
		srv.tlsCfg = o.tlsConfig.Clone()
		if len(srv.tlsCfg.Certificates) == 0 && srv.tlsCfg.GetCertificate == nil && srv.tlsCfg.GetConfigForClient == nil {
			return errorf("the TLS config carries no certificate")
		}
	}
	httpAddr, grpcAddr, err := srv.listen()
	if err != nil {
		return err
	}
	srv.httpAddr, srv.grpcAddr = httpAddr, grpcAddr
	if err := srv.buildServed(httpAddr, grpcAddr); err != nil {
		return err
	}
	if err := srv.buildCard(); err != nil {
		return err
	}
	srv.execs = newExecutions(executor)
	srv.handler = &conforming{RequestHandler: a2asrv.NewHandler(srv.execs, srv.handlerOptions()...), execs: srv.execs}
	srv.root = srv.rootHandler()
	if o.accessLog != nil {
		srv.root = accesslog.HTTP(srv.root, o.accessLog)
	}
	srv.root = srv.tracedHTTP(srv.root)
	if o.mounted {
		return nil
	}
	if srv.grpcLis != nil || o.grpcOnHTTP {
		gopts := []grpc.ServerOption{
			telemetry.GRPCServerOption(),
			grpc.MaxRecvMsgSize(int(o.maxRequestBytes)),
			// The HTTP/2 preface of a new connection must arrive within this (grpc-go
			// waits 120 s by default, and Stop does not close a connection still in it).
			grpc.ConnectionTimeout(min(o.shutdownTimeout, 10*time.Second)),
		}
		if o.accessLog != nil {
			gopts = append(gopts, grpc.StatsHandler(accesslog.GRPC(o.accessLog)))
		}
		if srv.tlsCfg != nil && srv.grpcLis != nil {
			gopts = append(gopts, grpc.Creds(credentials.NewTLS(srv.tlsCfg.Clone())))
		}
		srv.grpcSrv = grpc.NewServer(gopts...)
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true) // so that a gRPC client reaching this port gets an answer, not a broken preface
	srv.httpSrv = &http.Server{
		Handler:           srv.root,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       requestBodyTimeout,
		IdleTimeout:       2 * time.Minute,
		Protocols:         &protocols,
		ErrorLog:          log.New(io.Discard, "", 0),
		ConnState:         srv.conns.track,
	}
	if srv.tlsCfg != nil {
		srv.httpSrv.TLSConfig = srv.tlsCfg.Clone()
	}
	srv.cacheCtrl = fmt.Sprintf("public, max-age=%d", int(o.cardMaxAge/time.Second))
	if o.cardMaxAge <= 0 {
		srv.cacheCtrl = "no-cache"
	}
	return nil
}

// listen opens the server's listeners (or takes those of WithListeners) and says where
// the bindings are reachable; with WithMounted it opens nothing and returns the
// addresses the caller's own servers listen at. A nil grpcAddr means no gRPC.
func (srv *Server) listen() (httpAddr, grpcAddr net.Addr, err error) {
	o := &srv.o
	if o.mounted {
		if o.httpLis != nil || o.grpcLis != nil || o.grpcAddr != "" || o.grpcOnHTTP {
			return nil, nil, errorf("WithMounted serves on one's own servers: it cannot be combined with WithListeners, WithGRPCAddr or WithGRPCOnHTTP")
		}
		if httpAddr, err = mountedAddr("HTTP", o.mountHTTP); err != nil {
			return nil, nil, err
		}
		if o.mountGRPC != "" {
			if grpcAddr, err = mountedAddr("gRPC", o.mountGRPC); err != nil {
				return nil, nil, err
			}
		}
		return httpAddr, grpcAddr, nil
	}
	srv.httpLis, srv.grpcLis = o.httpLis, o.grpcLis
	if srv.httpLis == nil {
		l, err := net.Listen("tcp", o.httpAddr)
		if err != nil {
			return nil, nil, errorf("HTTP listener: %v", err)
		}
		srv.httpLis = l
	}
	if srv.grpcLis == nil && o.grpcAddr != "" {
		l, err := net.Listen("tcp", o.grpcAddr)
		if err != nil {
			return nil, nil, errorf("gRPC listener: %v", err)
		}
		srv.grpcLis = l
	}
	srv.httpLis = &closeOnce{Listener: srv.httpLis}
	srv.grpcLis = trackConns(srv.grpcLis)
	httpAddr = srv.httpLis.Addr()
	if srv.grpcLis != nil {
		grpcAddr = srv.grpcLis.Addr()
	}
	return httpAddr, grpcAddr, nil
}

// mountedAddr is the address of one of the caller's listeners (WithMounted): an IP
// host:port, as net.Listener.Addr().String() gives it.
func mountedAddr(what, hostport string) (net.Addr, error) {
	a, err := addr.ParseAddress(hostport, a2a.TransportProtocolGRPC)
	ip, isIP := a.IP()
	if err != nil || a.Scheme != "" || !isIP {
		return nil, errorf("WithMounted: the %s address %q must be the IP host:port the listener is bound to (listener.Addr().String())", what, hostport)
	}
	port, _ := strconv.Atoi(a.Port)
	return net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, uint16(port))), nil
}

// handlerOptions are the a2a-go request-handler options: the bounded task store, the
// card's capabilities checked on every call, push notifications and the extended card
// when configured, the tenant check, then the caller's own (which may replace the store).
func (srv *Server) handlerOptions() []a2asrv.RequestHandlerOption {
	o := &srv.o
	secured := len(srv.card.SecuritySchemes) > 0
	srv.store = newBoundedStore(o.taskLimits, secured)
	hopts := []a2asrv.RequestHandlerOption{a2asrv.WithTaskStore(srv.store)}
	if o.pushStore != nil && o.pushSender != nil {
		hopts = append(hopts, a2asrv.WithPushNotifications(o.pushStore, o.pushSender))
	}
	if p := srv.extendedProducer(); p != nil {
		hopts = append(hopts, a2asrv.WithExtendedAgentCardProducer(p))
	}
	if srv.capabilities != nil {
		hopts = append(hopts, a2asrv.WithCapabilityChecks(srv.capabilities))
	}
	if o.tenant != "" {
		hopts = append(hopts, a2asrv.WithCallInterceptors(tenantCheck{tenant: o.tenant}))
	}
	return append(hopts, o.handlerOpts...)
}

// buildServed lists every (binding, version) this server serves, in card order, with
// the address the card advertises and the one the self-check dials.
func (srv *Server) buildServed(httpAddr, grpcAddr net.Addr) error {
	o := &srv.o
	localScheme := "http"
	if srv.tlsCfg != nil {
		localScheme = "https"
	}
	srv.httpEP = listenEndpoint(httpAddr, localScheme)
	httpLocal := srv.httpEP.local
	if o.publicURL != "" {
		ep, err := publicHTTPEndpoint(o.publicURL, httpLocal)
		if err != nil {
			return err
		}
		srv.httpEP = ep
	}
	srv.hasGRPC = grpcAddr != nil
	if srv.hasGRPC {
		srv.grpcEP = listenEndpoint(grpcAddr, "")
		if o.publicGRPC != "" {
			ep, err := publicGRPCEndpoint(o.publicGRPC, srv.grpcEP.local)
			if err != nil {
				return err
			}
			srv.grpcEP = ep
		}
	} else if o.publicGRPC != "" {
		return errorf("a public gRPC address is set but no gRPC listener (set a gRPC address)")
	}
	versions := []string{card.V1}
	if o.v03 {
		versions = append(versions, card.V03)
	}
	for _, v := range versions {
		for _, rt := range httpRoutes {
			if rt.version != v {
				continue
			}
			s := served{binding: rt.binding, version: v, listener: onHTTP, path: rt.path,
				public: srv.httpEP.baseURL() + rt.path, local: localScheme + "://" + httpLocal + rt.path}
			if rt.afterGRPC {
				srv.served = append(srv.served, srv.grpcServed(v, httpLocal)...)
			}
			srv.served = append(srv.served, s)
		}
	}
	return nil
}

func (srv *Server) grpcServed(v, httpLocal string) []served {
	var out []served
	if srv.hasGRPC {
		out = append(out, served{binding: a2a.TransportProtocolGRPC, version: v, listener: onGRPC,
			public: srv.grpcEP.hostPort(), local: srv.grpcEP.local})
	}
	if srv.o.grpcOnHTTP {
		out = append(out, served{binding: a2a.TransportProtocolGRPC, version: v, listener: onHTTP,
			public: srv.httpEP.hostPort(), local: httpLocal})
	}
	return out
}

func (srv *Server) endpointOf(s served) endpoint {
	if s.listener == onGRPC {
		return srv.grpcEP
	}
	return srv.httpEP
}

// BaseURL is the HTTP base URL the card advertises (the public URL when set); the card
// is at BaseURL + card.WellKnownPath.
func (srv *Server) BaseURL() string { return srv.httpEP.baseURL() }

// CardURL is the URL of the published card as the card's own base URL names it.
func (srv *Server) CardURL() string { return srv.BaseURL() + card.WellKnownPath }

// LocalBaseURL is the HTTP base URL of the local listener (what the self-check dials).
func (srv *Server) LocalBaseURL() string {
	scheme := "http"
	if srv.tlsCfg != nil {
		scheme = "https"
	}
	return scheme + "://" + srv.httpEP.local
}

// HTTPAddr is the host:port the HTTP listener is bound to (with WithMounted, the one
// the caller's HTTP server listens at).
func (srv *Server) HTTPAddr() string { return srv.httpAddr.String() }

// GRPCAddr is the host:port the gRPC listener is bound to (with WithMounted, the one the
// caller's gRPC server listens at), "" when there is none.
func (srv *Server) GRPCAddr() string {
	if srv.grpcAddr == nil {
		return ""
	}
	return srv.grpcAddr.String()
}

// Card is the card this server publishes (derived or hand-written, verified). It is
// shared: do not modify it.
func (srv *Server) Card() *card.Card { return srv.card }

// CardJSON is the exact document the card endpoint serves.
func (srv *Server) CardJSON() []byte { return append([]byte(nil), srv.cardJSON...) }

// Interfaces lists every (binding, version) this server serves, at the address the card
// advertises for it and with the served tenant (WithTenant), in derived-card order.
func (srv *Server) Interfaces() []card.Interface {
	out := make([]card.Interface, 0, len(srv.served))
	for _, s := range srv.served {
		iface := s.iface()
		iface.Tenant = srv.o.tenant
		out = append(out, iface)
	}
	return out
}

// Tenant is the tenant this server serves (WithTenant), "" when none.
func (srv *Server) Tenant() string { return srv.o.tenant }

// Ready reports whether the card is published: the self-check passed and shutdown has
// not started.
func (srv *Server) Ready() bool { return srv.ready.Load() }
