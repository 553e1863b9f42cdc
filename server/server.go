package server

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/a2abind/a2abind/card"
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

	handler a2asrv.RequestHandler
	execs   *executions // the executor, bound to the server's lifetime
	httpSrv *http.Server
	grpcSrv *grpc.Server

	cardJSON   []byte
	card       *card.Card
	checkCard  *card.Card // the published card with each URL replaced by the local address
	etag       string
	cacheCtrl  string
	grpcReady  atomic.Bool // the gRPC services are registered (gRPC on the HTTP port may be served)
	ready      atomic.Bool // the self-check passed and shutdown has not started
	started    atomic.Bool
	stopping   atomic.Bool
	stop       chan struct{} // closed when Shutdown starts
	done       chan struct{} // closed when Shutdown finished
	serveErrMu sync.Mutex
	serveErr   error
	wg         sync.WaitGroup
	stopOnce   sync.Once
	shutOnce   sync.Once
	shutErr    error
}

// New assembles the server: it binds the listeners (or takes those of WithListeners),
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
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.cardJSON == nil && o.agentCard == nil && (o.name == "" || o.description == "" || o.version == "") {
		return nil, errorf("no agent info: pass WithAgentInfo(name, description, version, skills...) for the derived card, or a whole card (WithAgentCard, WithCardJSON)")
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
	srv := &Server{o: o, log: o.logger, stop: make(chan struct{}), done: make(chan struct{})}
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
	srv.httpLis, srv.grpcLis = o.httpLis, o.grpcLis
	if srv.httpLis == nil {
		l, err := net.Listen("tcp", o.httpAddr)
		if err != nil {
			return errorf("HTTP listener: %v", err)
		}
		srv.httpLis = l
	}
	if srv.grpcLis == nil && o.grpcAddr != "" {
		l, err := net.Listen("tcp", o.grpcAddr)
		if err != nil {
			return errorf("gRPC listener: %v", err)
		}
		srv.grpcLis = l
	}
	if err := srv.buildServed(); err != nil {
		return err
	}
	if err := srv.buildCard(); err != nil {
		return err
	}

	var hopts []a2asrv.RequestHandlerOption
	if o.tenant != "" {
		hopts = append(hopts, a2asrv.WithCallInterceptors(tenantCheck{tenant: o.tenant}))
	}
	srv.execs = newExecutions(executor)
	srv.handler = a2asrv.NewHandler(srv.execs, hopts...)
	if srv.grpcLis != nil || o.grpcOnHTTP {
		gopts := []grpc.ServerOption{
			grpc.ChainUnaryInterceptor(srv.unaryGate), grpc.ChainStreamInterceptor(srv.streamGate),
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
		Handler:           srv.httpHandler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       requestBodyTimeout,
		IdleTimeout:       2 * time.Minute,
		Protocols:         &protocols,
		ErrorLog:          log.New(io.Discard, "", 0),
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

// buildServed lists every (binding, version) this server serves, in card order, with
// the address the card advertises and the one the self-check dials.
func (srv *Server) buildServed() error {
	o := &srv.o
	localScheme := "http"
	if srv.tlsCfg != nil {
		localScheme = "https"
	}
	srv.httpEP = listenEndpoint(srv.httpLis.Addr(), localScheme)
	httpLocal := srv.httpEP.local
	if o.publicURL != "" {
		ep, err := publicHTTPEndpoint(o.publicURL, httpLocal)
		if err != nil {
			return err
		}
		srv.httpEP = ep
	}
	if srv.grpcLis != nil {
		srv.grpcEP = listenEndpoint(srv.grpcLis.Addr(), "")
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
			if rt.binding == a2a.TransportProtocolHTTPJSON {
				// gRPC comes before HTTP+JSON in card order.
				srv.served = append(srv.served, srv.grpcServed(v, httpLocal)...)
			}
			srv.served = append(srv.served, s)
		}
	}
	return nil
}

func (srv *Server) grpcServed(v, httpLocal string) []served {
	var out []served
	if srv.grpcLis != nil {
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

// HTTPAddr is the host:port the HTTP listener is bound to.
func (srv *Server) HTTPAddr() string { return srv.httpLis.Addr().String() }

// GRPCAddr is the host:port the own gRPC listener is bound to, "" when there is none.
func (srv *Server) GRPCAddr() string {
	if srv.grpcLis == nil {
		return ""
	}
	return srv.grpcLis.Addr().String()
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
