package server

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// ErrSelfCheck is matched (errors.Is) by the *SelfCheckError Start returns when a
// declared interface did not answer `served` over the real sockets in time.
var ErrSelfCheck = errors.New("self-check failed")

// SelfCheckError is Start's refusal to publish the card: the last self-check round
// found declared interfaces that are not served.
type SelfCheckError struct {
	// Results are the probe results of the last round, in card order.
	Results []probe.Result
}

// Error lists the interfaces that are not served and what the probe found.
func (e *SelfCheckError) Error() string {
	var bad []string
	for _, r := range e.Results {
		if r.Outcome != probe.Served {
			bad = append(bad, fmt.Sprintf("%s (%s): %s: %s", r.Interface, r.Interface.Source, r.Outcome, r.Detail))
		}
	}
	return "self-check over the real sockets failed, card not published: " + strings.Join(bad, "; ")
}

// Is makes errors.Is(err, ErrSelfCheck) true.
func (e *SelfCheckError) Is(target error) bool { return target == ErrSelfCheck }

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
		name: "a2abind-echo", description: "a2abind echo agent: answers with the text it was sent", version: "1.0.0",
	}
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.skills) == 0 {
		o.skills = []a2a.AgentSkill{EchoSkill}
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

// buildCard derives the card from the served bindings, or verifies the hand-written one.
func (srv *Server) buildCard() error {
	raw := srv.o.cardJSON
	if srv.o.agentCard != nil {
		b, err := json.Marshal(srv.o.agentCard)
		if err != nil {
			return errorf("marshal the agent card: %v", err)
		}
		raw = b
	}
	derived := raw == nil
	if derived {
		b, err := srv.deriveCard()
		if err != nil {
			return err
		}
		raw = b
	}
	c, err := card.Parse(raw)
	if err != nil {
		return fmt.Errorf("server: card: %w", err)
	}
	matched, err := srv.verify(c)
	if err != nil {
		if derived {
			return fmt.Errorf("server: derived card does not match the bindings (a bug): %w", err)
		}
		return err
	}
	check := &card.Card{Shape: c.Shape, Name: c.Name, Version: c.Version}
	for i, iface := range c.Interfaces {
		iface.URL = matched[i].local
		check.Interfaces = append(check.Interfaces, iface)
	}
	if raw, err = srv.signCard(raw); err != nil { // sign.go
		return err
	}
	sum := sha256.Sum256(raw)
	srv.cardJSON, srv.card, srv.checkCard = raw, c, check
	srv.etag = `"` + hex.EncodeToString(sum[:16]) + `"`
	return nil
}

func (srv *Server) deriveCard() ([]byte, error) {
	o := &srv.o
	ac := &a2a.AgentCard{
		Name: o.name, Description: o.description, Version: o.version,
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             o.skills,
	}
	for _, s := range srv.served {
		ac.SupportedInterfaces = append(ac.SupportedInterfaces, &a2a.AgentInterface{
			URL: s.public, ProtocolBinding: s.binding, ProtocolVersion: a2a.ProtocolVersion(s.version),
			Tenant: o.tenant,
		})
	}
	if !o.v03 {
		return json.MarshalIndent(ac, "", "  ")
	}
	p, ok := a2av0.NewStaticAgentCardProducer(ac).(a2asrv.AgentCardJSONProducer)
	if !ok {
		return nil, errorf("a2a-go's v0.3 card producer writes no JSON")
	}
	return p.CardJSON(context.Background())
}

// httpHandler routes the HTTP listener: gRPC by content type first, then the card,
// health, readiness and the bindings at their paths.
func (srv *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(card.WellKnownPath, srv.serveCard)
	srv.mountJWKS(mux) // sign.go
	mux.HandleFunc(PathHealthz, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc(PathReadyz, srv.serveReadyz)
	for _, rt := range httpRoutes {
		if rt.version == card.V03 && !srv.o.v03 {
			continue
		}
		switch {
		case rt.binding == a2a.TransportProtocolJSONRPC && rt.version == card.V1:
			mux.Handle(rt.path, srv.gateJSONRPC(rt, a2asrv.NewJSONRPCHandler(srv.handler)))
		case rt.binding == a2a.TransportProtocolJSONRPC:
			mux.Handle(rt.path, srv.gateJSONRPC(rt, a2av0.NewJSONRPCHandler(srv.handler)))
		case rt.version == card.V1 && srv.o.tenant != "":
			mux.Handle(rt.path+"/", srv.gateREST(rt, http.StripPrefix(rt.path, srv.tenantREST(srv.handler))))
		case rt.version == card.V1:
			mux.Handle(rt.path+"/", srv.gateREST(rt, http.StripPrefix(rt.path, a2asrv.NewRESTHandler(srv.handler))))
		default:
			mux.Handle(rt.path+"/", srv.gateREST(rt, http.StripPrefix(rt.path, a2av0.NewRESTHandler(srv.handler))))
		}
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("404 no A2A binding at %s; %s", r.URL.Path, srv.whereText()), http.StatusNotFound)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isGRPC(r) {
			ct := strings.ToLower(r.Header.Get("Content-Type"))
			native := r.ProtoMajor == 2 && (ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+"))
			if srv.o.grpcOnHTTP && native {
				if !srv.grpcReady.Load() {
					w.Header().Set("Content-Type", "application/grpc")
					w.Header().Set("Grpc-Status", "14")
					w.Header().Set("Grpc-Message", "a2abind: gRPC is starting")
					w.WriteHeader(http.StatusOK)
					return
				}
				srv.grpcSrv.ServeHTTP(w, r)
				return
			}
			if srv.o.grpcOnHTTP && r.ProtoMajor != 2 {
				http.Error(w, "a2abind: gRPC on this port needs HTTP/2 (prior knowledge over cleartext, ALPN h2 over TLS), not HTTP/1.1",
					http.StatusUnsupportedMediaType)
				return
			}
			srv.grpcElsewhere(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
		mux.ServeHTTP(w, r)
	})
}

// maxRequestBytes bounds the body of an HTTP request to a binding (gRPC messages are
// bounded by grpc-go's own 4 MiB default).
const maxRequestBytes = 8 << 20

// requestBodyTimeout bounds how long an HTTP request (headers and body) may take to
// arrive (the http.Server's ReadTimeout), so that a client trickling its body cannot hold
// a handler forever. net/http lifts the deadline once the body is read, so long answers
// (SSE streams, slow SendMessage calls) are not bounded by it. A variable for the
// package's tests only.
var requestBodyTimeout = 30 * time.Second

// serveCard publishes the card only while the server is ready: 503 with Retry-After
// before the self-check passed and after shutdown started. The card carries
// Cache-Control and a strong ETag; If-None-Match gives 304.
func (srv *Server) serveCard(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "If-None-Match, "+a2a.SvcParamVersion)
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !srv.ready.Load() {
		h.Set("Retry-After", "1")
		h.Set("Cache-Control", "no-store")
		why := "the self-check of the declared interfaces has not passed yet"
		if srv.stopping.Load() {
			why = "the agent is shutting down"
		}
		http.Error(w, "agent card not published: "+why, http.StatusServiceUnavailable)
		return
	}
	h.Set("Cache-Control", srv.cacheCtrl)
	h.Set("ETag", srv.etag)
	if etagMatch(r.Header.Get("If-None-Match"), srv.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(srv.cardJSON)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(srv.cardJSON)
}

// etagMatch implements If-None-Match's weak comparison (RFC 9110 §13.1.2).
func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

func (srv *Server) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !srv.ready.Load() {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	_, _ = io.WriteString(w, "ready\n")
}

// Start serves every binding, runs the self-check over the real sockets and publishes
// the card once every declared interface answers `served`. Until then the card
// endpoint answers 503 with Retry-After and /readyz is not ready. If the self-check does
// not pass within the self-check timeout (or ctx ends), Start shuts the server down and
// returns a *SelfCheckError (errors.Is ErrSelfCheck). ctx bounds the self-check only:
// once Start returned nil the server runs until Shutdown.
func (srv *Server) Start(ctx context.Context) error {
	if !srv.started.CompareAndSwap(false, true) {
		return errorf("Start called twice")
	}
	if srv.stopping.Load() {
		return errorf("Start after Shutdown")
	}
	srv.goServe("http", func() error {
		if srv.tlsCfg != nil {
			return srv.httpSrv.ServeTLS(srv.httpLis, "", "")
		}
		return srv.httpSrv.Serve(srv.httpLis)
	})
	if h := srv.o.hooks.beforeGRPCRegister; h != nil {
		h()
	}
	if srv.grpcSrv != nil {
		if !srv.o.hooks.skipGRPCRegister {
			a2agrpc.NewHandler(srv.handler).RegisterWith(srv.grpcSrv)
			if srv.o.v03 {
				a2agrpcv0.NewHandler(srv.handler).RegisterWith(srv.grpcSrv)
			}
		}
		srv.grpcReady.Store(true)
		srv.event("grpc-registered")
		if srv.grpcLis != nil {
			srv.goServe("grpc", func() error { return srv.grpcSrv.Serve(srv.grpcLis) })
		}
	}
	for _, s := range srv.served {
		srv.log.Info("serving", "binding", string(s.binding), "version", s.version, "url", s.public, "listen", s.local)
	}
	if srv.httpEP.anyHost || (srv.grpcLis != nil && srv.grpcEP.anyHost) {
		srv.log.Warn("a listener is bound to all interfaces and no public address is set: the card advertises loopback; set a public URL for remote clients")
	}
	srv.log.Info("card pending self-check", "card", srv.CardURL(), "interfaces", len(srv.card.Interfaces))

	if err := srv.selfCheck(ctx); err != nil {
		if srv.stopping.Load() {
			return errorf("shut down during start; card never published")
		}
		srv.log.Error("self-check failed; card not published", "err", err)
		sctx, cancel := context.WithTimeout(context.Background(), srv.o.shutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return err
	}
	if srv.stopping.Load() {
		return errorf("shut down during start")
	}
	srv.ready.Store(true)
	srv.event("ready")
	srv.log.Info("ready: card published", "card", srv.CardURL(), "etag", srv.etag)
	return nil
}

func (srv *Server) goServe(name string, serve func() error) {
	srv.wg.Add(1)
	go func() {
		defer srv.wg.Done()
		if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) && !srv.stopping.Load() {
			srv.log.Error("listener failed", "listener", name, "err", err)
			srv.serveErrMu.Lock()
			if srv.serveErr == nil {
				srv.serveErr = fmt.Errorf("server: %s listener: %w", name, err)
			}
			srv.serveErrMu.Unlock()
			go func() { _ = srv.Shutdown(context.Background()) }()
		}
	}()
}

// selfCheck probes the published card's interfaces at their local addresses until every
// one is served, backing off between rounds, bounded by the self-check timeout.
func (srv *Server) selfCheck(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, srv.o.selfCheck)
	defer cancel()
	go func() {
		select {
		case <-srv.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	opts := []probe.Option{probe.WithTimeout(min(srv.o.selfCheck, 5*time.Second))}
	if srv.tlsCfg != nil {
		// The self-check proves the bindings over TLS on the local socket; whether the
		// certificate is trusted under the public name is the deployment's concern.
		opts = append(opts, probe.WithInsecureSkipVerify())
	}
	backoff := 20 * time.Millisecond
	var prev []probe.Result
	for round := 1; ; round++ {
		results := probe.Card(ctx, srv.checkCard, opts...)
		if ctx.Err() != nil && prev != nil {
			// The deadline cut this round short: keep what the previous, complete round
			// found for the interfaces that only timed out now.
			for i := range results {
				if results[i].Outcome == probe.Timeout {
					results[i] = prev[i]
				}
			}
		}
		prev = results
		ok := len(results) > 0
		for _, r := range results {
			level := slog.LevelInfo
			if r.Outcome != probe.Served {
				ok = false
				level = slog.LevelWarn
			}
			srv.log.Log(ctx, level, "self-check", "round", round, "binding", string(r.Interface.Binding),
				"version", r.Interface.ProtocolVersion, "local", r.Interface.URL, "outcome", string(r.Outcome),
				"latency", r.Latency, "detail", r.Detail)
		}
		if ok {
			return nil
		}
		if ctx.Err() != nil {
			return &SelfCheckError{Results: results}
		}
		select {
		case <-ctx.Done():
			return &SelfCheckError{Results: results}
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// Shutdown withdraws the card and readiness first (both answer 503 from then on), then
// lets the bindings drain in-flight requests and closes them, bounded by ctx and the
// shutdown timeout; connections still open at the deadline are closed. It is safe to call
// more than once and before Start; every call returns the first call's result.
func (srv *Server) Shutdown(ctx context.Context) error {
	srv.shutOnce.Do(func() {
		srv.stopping.Store(true)
		srv.ready.Store(false)
		srv.stopOnce.Do(func() { close(srv.stop) })
		srv.event("withdrawn")
		srv.log.Info("shutting down: card and readiness withdrawn")
		if h := srv.o.hooks.afterWithdraw; h != nil {
			h()
		}
		srv.shutErr = srv.drain(ctx)
		close(srv.done)
	})
	<-srv.done
	return srv.shutErr
}

func (srv *Server) drain(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, srv.o.shutdownTimeout)
	defer cancel()
	if !srv.started.Load() {
		srv.closeListeners()
		return nil
	}
	var errs []error
	var wg sync.WaitGroup
	if srv.grpcSrv != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stopped := make(chan struct{})
			go func() { srv.grpcSrv.GracefulStop(); close(stopped) }()
			select {
			case <-stopped:
			case <-ctx.Done():
				srv.grpcSrv.Stop()
				<-stopped
				srv.log.Warn("gRPC drain timed out; connections closed")
			}
			srv.event("grpc-closed")
		}()
	}
	if err := srv.httpSrv.Shutdown(ctx); err != nil {
		srv.log.Warn("HTTP drain timed out; connections closed", "err", err)
		errs = append(errs, fmt.Errorf("server: HTTP drain: %w", err))
		_ = srv.httpSrv.Close()
	}
	srv.event("http-closed")
	wg.Wait()
	srv.wg.Wait()
	// Executions run detached from their requests: those still running now (a task
	// that outlived its call, a stream cut by the drain deadline) are cancelled.
	if !srv.execs.stop(min(srv.o.shutdownTimeout, executionGrace)) {
		srv.log.Warn("executions still running after shutdown: the executor ignores its context")
	}
	srv.closeListeners()
	srv.log.Info("stopped")
	return errors.Join(errs...)
}

func (srv *Server) closeListeners() {
	if srv.httpLis != nil {
		_ = srv.httpLis.Close()
	}
	if srv.grpcLis != nil {
		_ = srv.grpcLis.Close()
	}
}

func (srv *Server) event(name string) {
	if f := srv.o.hooks.event; f != nil {
		f(name)
	}
}

// Wait blocks until Shutdown has finished and returns the error of a listener that
// failed on its own (nil after a requested shutdown).
func (srv *Server) Wait() error {
	<-srv.done
	srv.serveErrMu.Lock()
	defer srv.serveErrMu.Unlock()
	return srv.serveErr
}

// Done is closed when Shutdown has finished.
func (srv *Server) Done() <-chan struct{} { return srv.done }

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
