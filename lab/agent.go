package lab

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/bindtable"
)

// Paths the lab mounts bindings at unless an option says otherwise.
const (
	PathJSONRPC    = "/a2a/jsonrpc"
	PathREST       = "/a2a/rest"
	PathJSONRPCV03 = "/a2a/v03/jsonrpc"
	PathRESTV03    = "/a2a/v03/rest"
)

// GRPCMode says what the agent's gRPC listener serves.
type GRPCMode int

const (
	// GRPCOff opens no gRPC listener.
	GRPCOff GRPCMode = iota
	// GRPCNoService accepts gRPC connections with no A2A service registered: every
	// call answers UNIMPLEMENTED "unknown service lf.a2a.v1.A2AService" (the seed's :9443).
	GRPCNoService
	// GRPCV1 registers the v1.0 service lf.a2a.v1.A2AService.
	GRPCV1
	// GRPCV03 registers only the v0.3 service a2a.v1.A2AService.
	GRPCV03
	// GRPCBoth registers both services on one server.
	GRPCBoth
)

// mount is one binding on the HTTP listener.
type mount struct {
	binding a2a.TransportProtocol
	version string
	path    string
}

type config struct {
	mounts   []mount
	grpcMode GRPCMode
	token    string
	tls      bool
	cardFn   func(*Agent) any
	executor a2asrv.AgentExecutor
	wrap     func(http.Handler) http.Handler

	tenantPaths []string            // WithTenantREST mounts (tenant.go)
	grpcOpts    []grpc.ServerOption // WithGRPCServerOptions (relay.go)

	handlerOpts []a2asrv.RequestHandlerOption  // WithHandlerOptions (capabilities.go)
	open        map[a2a.TransportProtocol]bool // WithOpenBinding: no token asked there
}

// Option configures Start.
type Option func(*config)

// WithJSONRPC mounts the JSON-RPC binding of the given protocol version (card.V1 or
// card.V03) at path on the HTTP listener.
func WithJSONRPC(version, path string) Option {
	return func(c *config) { c.mounts = append(c.mounts, mount{a2a.TransportProtocolJSONRPC, version, path}) }
}

// WithREST mounts the HTTP+JSON binding of the given protocol version at path: 1.0
// routes at {path}/..., 0.3 routes at {path}/v1/... (a2a-go v2.4.0's v0.3 handler, the
// v0.3 specification's layout), so both versions may share one path.
func WithREST(version, path string) Option {
	return func(c *config) { c.mounts = append(c.mounts, mount{a2a.TransportProtocolHTTPJSON, version, path}) }
}

// WithGRPC opens a gRPC listener serving what mode says.
func WithGRPC(mode GRPCMode) Option { return func(c *config) { c.grpcMode = mode } }

// WithAuth requires "Authorization: Bearer token" on every A2A route (not on the card):
// HTTP answers 401 with WWW-Authenticate, gRPC answers UNAUTHENTICATED.
func WithAuth(token string) Option { return func(c *config) { c.token = token } }

// WithTLS serves HTTP and gRPC over TLS with a fresh self-signed certificate for
// 127.0.0.1; Agent.CertPool trusts it.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// WithCard sets the card the agent publishes, computed from its listening addresses.
// The value is marshalled as JSON unless it is already []byte.
func WithCard(fn func(a *Agent) any) Option { return func(c *config) { c.cardFn = fn } }

// WithExecutor replaces the echo executor.
func WithExecutor(e a2asrv.AgentExecutor) Option { return func(c *config) { c.executor = e } }

// WithHTTPMiddleware wraps the whole HTTP handler (card included), for faults such as
// dropping the connection after a request was processed.
func WithHTTPMiddleware(wrap func(http.Handler) http.Handler) Option {
	return func(c *config) { c.wrap = wrap }
}

// Agent is a running lab agent.
type Agent struct {
	// BaseURL is the HTTP listener's base URL (http:// or https://); the card is at
	// BaseURL + card.WellKnownPath.
	BaseURL string
	// HTTPAddr is the HTTP listener's host:port.
	HTTPAddr string
	// GRPCAddr is the gRPC listener's host:port, empty when there is none.
	GRPCAddr string
	// CertPool trusts the agent's certificate when it uses TLS.
	CertPool *x509.CertPool
	// Token is the bearer token the agent requires, empty when none.
	Token string
	// CardJSON is the card as published.
	CardJSON []byte

	cfg        config
	httpSrv    *http.Server
	grpcSrv    *grpc.Server
	wg         sync.WaitGroup
	closeOnce  sync.Once
	httpScheme string
}

// URL returns the absolute URL of a path on the HTTP listener.
func (a *Agent) URL(path string) string {
	if path == "/" {
		return a.BaseURL
	}
	return a.BaseURL + path
}

// HTTPClient returns an HTTP client that trusts the agent's certificate.
func (a *Agent) HTTPClient() *http.Client {
	if a.CertPool == nil {
		return &http.Client{Timeout: 10 * time.Second}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: a.CertPool, MinVersion: tls.VersionTLS12},
	}}
}

// Start starts an agent on loopback. With no option it is the healthy agent of Healthy.
func Start(opts ...Option) (*Agent, error) {
	cfg := newConfig(opts)
	if err := cfg.check(); err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, Token: cfg.token, httpScheme: "http"}
	var tlsCfg *tls.Config
	if cfg.tls {
		cert, pool, err := selfSigned()
		if err != nil {
			return nil, err
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		a.CertPool = pool
		a.httpScheme = "https"
	}
	httpLis, grpcLis, err := a.listen()
	if err != nil {
		return nil, err
	}
	if err := a.publishCard(); err != nil {
		httpLis.Close()
		if grpcLis != nil {
			grpcLis.Close()
		}
		return nil, err
	}
	handler := a2asrv.NewHandler(cfg.executor, cfg.handlerOpts...)
	a.serveHTTP(httpLis, tlsCfg, handler)
	if grpcLis != nil {
		a.serveGRPC(grpcLis, tlsCfg, handler)
	}
	return a, nil
}

// newConfig applies opts, with the healthy agent's options when they mount nothing and
// the echo executor unless one is given.
func newConfig(opts []Option) config {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.mounts) == 0 && len(cfg.tenantPaths) == 0 && cfg.grpcMode == GRPCOff && cfg.cardFn == nil {
		for _, o := range Healthy() {
			o(&cfg)
		}
	}
	if cfg.executor == nil {
		cfg.executor = Echo{}
	}
	return cfg
}

// check says which mount or gRPC mode names nothing internal/bindtable or bindings.go registers.
func (cfg config) check() error {
	for _, m := range cfg.mounts {
		if _, ok := bindtable.Table[bindtable.Key{Binding: m.binding, Version: m.version}]; !ok {
			return fmt.Errorf("lab: no %s binding of version %q is registered (internal/bindtable)", m.binding, m.version)
		}
	}
	if _, ok := grpcModeVersions[cfg.grpcMode]; !ok && cfg.grpcMode != GRPCOff {
		return fmt.Errorf("lab: unknown GRPCMode %d", cfg.grpcMode)
	}
	return nil
}

// listen opens the HTTP listener and, when a gRPC mode is set, the gRPC one.
func (a *Agent) listen() (httpLis, grpcLis net.Listener, err error) {
	if httpLis, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	a.HTTPAddr = httpLis.Addr().String()
	a.BaseURL = a.httpScheme + "://" + a.HTTPAddr
	if a.cfg.grpcMode != GRPCOff {
		if grpcLis, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			httpLis.Close()
			return nil, nil, err
		}
		a.GRPCAddr = grpcLis.Addr().String()
	}
	return httpLis, grpcLis, nil
}

// publishCard computes the card from the listening addresses (WithCard).
func (a *Agent) publishCard() error {
	if a.cfg.cardFn == nil {
		return nil
	}
	v := a.cfg.cardFn(a)
	if b, ok := v.([]byte); ok {
		a.CardJSON = b
		return nil
	}
	var err error
	if a.CardJSON, err = json.Marshal(v); err != nil {
		return fmt.Errorf("lab: marshal card: %w", err)
	}
	return nil
}

// serveHTTP serves the card and the mounted bindings on httpLis until Close.
func (a *Agent) serveHTTP(httpLis net.Listener, tlsCfg *tls.Config, handler a2asrv.RequestHandler) {
	mux := http.NewServeMux()
	mux.HandleFunc(card.WellKnownPath, func(w http.ResponseWriter, r *http.Request) {
		if a.CardJSON == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(a.CardJSON)
	})
	for _, m := range a.cfg.mounts {
		b := bindtable.Table[bindtable.Key{Binding: m.binding, Version: m.version}] // checked by config.check
		h := b.New(handler)
		if !a.cfg.open[m.binding] {
			h = a.requireToken(h)
		}
		for _, mt := range b.Route.Mounts(m.path, h) {
			mux.Handle(mt.Pattern, mt.Handler)
		}
	}
	a.mountTenantREST(mux, handler)
	var root http.Handler = mux
	if a.cfg.wrap != nil {
		root = a.cfg.wrap(root)
	}
	a.httpSrv = &http.Server{Handler: root, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	if tlsCfg != nil {
		a.httpSrv.TLSConfig = tlsCfg.Clone() // http2 setup writes to it; gRPC gets its own
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		if tlsCfg != nil {
			_ = a.httpSrv.ServeTLS(httpLis, "", "")
		} else {
			_ = a.httpSrv.Serve(httpLis)
		}
	}()
}

// serveGRPC serves the services of the gRPC mode on grpcLis until Close.
func (a *Agent) serveGRPC(grpcLis net.Listener, tlsCfg *tls.Config, handler a2asrv.RequestHandler) {
	var gopts []grpc.ServerOption
	if tlsCfg != nil {
		gopts = append(gopts, grpc.Creds(credentials.NewTLS(tlsCfg)))
	}
	if a.cfg.token != "" && !a.cfg.open[a2a.TransportProtocolGRPC] {
		gopts = append(gopts, grpc.UnaryInterceptor(a.grpcAuth), grpc.StreamInterceptor(a.grpcStreamAuth))
	}
	a.grpcSrv = grpc.NewServer(append(gopts, a.cfg.grpcOpts...)...)
	for _, v := range grpcModeVersions[a.cfg.grpcMode] {
		grpcServices[v](handler, a.grpcSrv)
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		_ = a.grpcSrv.Serve(grpcLis)
	}()
}

// Close stops every listener and waits for the serving goroutines.
func (a *Agent) Close() error {
	var err error
	a.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if shutdownErr := a.httpSrv.Shutdown(ctx); shutdownErr != nil {
			err = errors.Join(err, a.httpSrv.Close())
		}
		if a.grpcSrv != nil {
			a.grpcSrv.Stop()
		}
		a.wg.Wait()
	})
	return err
}

const wwwAuthenticate = `Bearer realm="a2abind-lab"`

func (a *Agent) requireToken(h http.Handler) http.Handler {
	if a.cfg.token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+a.cfg.token {
			w.Header().Set("WWW-Authenticate", wwwAuthenticate)
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (a *Agent) grpcAuthorized(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		if v == "Bearer "+a.cfg.token {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "missing or invalid bearer token")
}

func (a *Agent) grpcAuth(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := a.grpcAuthorized(ctx); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (a *Agent) grpcStreamAuth(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := a.grpcAuthorized(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}
