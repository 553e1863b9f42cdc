package server

import (
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
)

// Defaults for the options.
const (
	// DefaultHTTPAddr is where the HTTP listener (card, JSON-RPC, HTTP+JSON) binds unless
	// WithHTTPAddr or WithListeners says otherwise.
	DefaultHTTPAddr = "127.0.0.1:0"
	// DefaultShutdownTimeout bounds how long Shutdown lets in-flight requests drain.
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultSelfCheckTimeout bounds the self-check Start runs before it publishes the card.
	DefaultSelfCheckTimeout = 10 * time.Second
	// DefaultCardMaxAge is the Cache-Control max-age of the published card.
	DefaultCardMaxAge = 5 * time.Minute
	// DefaultMaxRequestBytes bounds an HTTP request body and a received gRPC message.
	DefaultMaxRequestBytes = 8 << 20
)

// Option configures New. Options are applied in order; later ones win.
type Option func(*options)

type options struct {
	httpAddr        string
	grpcAddr        string
	grpcOnHTTP      bool
	v03             bool
	publicURL       string
	publicGRPC      string
	cardJSON        []byte
	agentCard       *a2a.AgentCard
	certFile        string
	keyFile         string
	tlsConfig       *tls.Config
	logger          *slog.Logger
	accessLog       *slog.Logger
	name            string
	description     string
	version         string
	skills          []a2a.AgentSkill
	shutdownTimeout time.Duration
	selfCheck       time.Duration
	cardMaxAge      time.Duration
	httpLis         net.Listener
	grpcLis         net.Listener
	tenant          string
	taskLimits      taskLimits
	maxRequestBytes int64
	handlerOpts     []a2asrv.RequestHandlerOption
	pushStore       push.ConfigStore
	pushSender      push.Sender
	extendedCard    a2asrv.ExtendedAgentCardProducer
	extendedDerived bool
	securitySchemes a2a.NamedSecuritySchemes
	securityReqs    a2a.SecurityRequirementsOptions
	mountHTTP       string
	mountGRPC       string
	mounted         bool
	selfCheckHeader http.Header
	signing         *signing // sign.go

	// Test hooks (unexported, set by tests in this package only).
	hooks hooks
}

// hooks let the package's own tests stop the server at the points where order matters.
type hooks struct {
	beforeGRPCRegister func()       // after the HTTP listener serves, before the gRPC services are registered
	skipGRPCRegister   bool         // serve gRPC with no A2A service registered (the seed's :9443)
	afterWithdraw      func()       // in Shutdown, after the card is withdrawn, before bindings close
	event              func(string) // records "grpc-registered", "ready", "withdrawn", "http-closed", "grpc-closed"
}

// WithHTTPAddr sets the address the HTTP listener binds (card, JSON-RPC, HTTP+JSON),
// for example "127.0.0.1:0" or ":8080". The default is DefaultHTTPAddr.
func WithHTTPAddr(addr string) Option { return func(o *options) { o.httpAddr = addr } }

// WithGRPCAddr opens a gRPC listener of its own at addr serving the A2A gRPC binding
// (lf.a2a.v1.A2AService, plus a2a.v1.A2AService with WithV03).
func WithGRPCAddr(addr string) Option { return func(o *options) { o.grpcAddr = addr } }

// WithGRPCOnHTTP also serves gRPC on the HTTP listener: requests with content type
// application/grpc over HTTP/2 (cleartext with prior knowledge, or TLS with ALPN h2) go
// to the gRPC server; the card declares GRPC at the HTTP listener's host:port.
func WithGRPCOnHTTP() Option { return func(o *options) { o.grpcOnHTTP = true } }

// WithV03 serves the v0.3 wire of every binding beside v1.0 (JSON-RPC and HTTP+JSON at
// their own paths, gRPC a2a.v1.A2AService on the same gRPC server) and publishes the
// union card (v1.0 supportedInterfaces plus v0.3 url/preferredTransport/
// additionalInterfaces) that a2a-go's compat producer writes.
func WithV03() Option { return func(o *options) { o.v03 = true } }

// WithPublicURL sets the base URL the card advertises for the HTTP listener, for a
// server behind a reverse proxy or in a container (for example
// "https://agent.example.com/team-a"). Binding paths are appended to it. The self-check
// still dials the local listener: it proves the bindings, not the proxy.
func WithPublicURL(httpBase string) Option { return func(o *options) { o.publicURL = httpBase } }

// WithPublicGRPCAddr sets the host:port the card advertises for the gRPC listener.
func WithPublicGRPCAddr(hostport string) Option {
	return func(o *options) { o.publicGRPC = hostport }
}

// WithCardJSON publishes a hand-written card (v1.0, v0.3 or union shape) instead of the
// derived one. It is accepted only if every interface it declares is served by this
// server at the declared address, binding and version, and its preferred entry is served
// at its primary URL; otherwise New fails with a *BindingError (errors.Is ErrCardMismatch).
// The bytes are served as given.
func WithCardJSON(raw []byte) Option {
	return func(o *options) { o.cardJSON = append([]byte(nil), raw...); o.agentCard = nil }
}

// WithAgentCard is WithCardJSON for a card built with a2a-go's types (v1.0 shape).
func WithAgentCard(c *a2a.AgentCard) Option {
	return func(o *options) { o.agentCard = c; o.cardJSON = nil }
}

// WithTLS serves HTTP and gRPC over TLS with the certificate and key in PEM files.
func WithTLS(certFile, keyFile string) Option {
	return func(o *options) { o.certFile, o.keyFile = certFile, keyFile }
}

// WithTLSConfig serves HTTP and gRPC over TLS with cfg (it must carry a certificate).
func WithTLSConfig(cfg *tls.Config) Option { return func(o *options) { o.tlsConfig = cfg } }

// WithAccessLog logs one line per request to l (accesslog: binding, A2A method,
// status or A2A error, duration, bytes; never bodies or credentials): HTTP requests on
// Handler, and calls on the server's own gRPC listener. Off by default.
func WithAccessLog(l *slog.Logger) Option { return func(o *options) { o.accessLog = l } }

// WithLogger sets the structured logger for what is served where, the self-check and
// shutdown. The default discards logs.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithAgentInfo sets the name, description, agent version and skills of the derived card.
// It is required unless a whole card is given (WithAgentCard, WithCardJSON): New fails
// without it, so that no server publishes a made-up agent.
func WithAgentInfo(name, description, version string, skills ...a2a.AgentSkill) Option {
	return func(o *options) {
		o.name, o.description, o.version = name, description, version
		o.skills = append([]a2a.AgentSkill(nil), skills...)
	}
}

// WithShutdownTimeout bounds how long Shutdown lets in-flight requests drain before it
// closes the remaining connections. The default is DefaultShutdownTimeout.
func WithShutdownTimeout(d time.Duration) Option { return func(o *options) { o.shutdownTimeout = d } }

// WithSelfCheckTimeout bounds the self-check Start runs over the real sockets before it
// publishes the card. The default is DefaultSelfCheckTimeout.
func WithSelfCheckTimeout(d time.Duration) Option { return func(o *options) { o.selfCheck = d } }

// WithCardMaxAge sets the Cache-Control max-age of the published card. The default is
// DefaultCardMaxAge.
func WithCardMaxAge(d time.Duration) Option { return func(o *options) { o.cardMaxAge = d } }

// WithListeners serves on listeners the caller opened (tests, the demo, socket
// activation) instead of binding WithHTTPAddr / WithGRPCAddr; a nil one is bound from its
// address option as usual (a nil grpcLis and no WithGRPCAddr: no gRPC listener). The
// server owns them from then on: it closes them on Shutdown, or when New fails.
func WithListeners(httpLis, grpcLis net.Listener) Option {
	return func(o *options) { o.httpLis, o.grpcLis = httpLis, grpcLis }
}

// WithTenant serves one tenant: every interface of the card declares `tenant: name`,
// and every request must carry it, as A2A requires of clients (§8.3.2 rule 4): JSON-RPC
// and gRPC in the request's tenant field, HTTP+JSON as the path prefix
// {url}/{name}/message:send (a2a-go's NewTenantRESTHandler). A request with a missing or
// different tenant is refused with A2A InvalidParams naming the served tenant (JSON-RPC
// -32602, gRPC INVALID_ARGUMENT, HTTP+JSON 400; ErrorInfo reason INVALID_PARAMS with
// metadata expectedTenant and tenant). The executor sees the tenant as
// a2asrv.ExecutorContext.Tenant. A hand-written card must declare exactly name on every
// interface. The name may have several path segments ("locations/eu/projects/p"); it
// cannot be combined with WithV03 (v0.3 requests and cards have no tenant field).
func WithTenant(name string) Option { return func(o *options) { o.tenant = name } }

// WithMounted serves the agent on servers of one's own instead of the server's
// listeners: httpAddr is the IP host:port of the HTTP server that serves Handler (or the
// mux Mount added the parts to), grpcAddr that of the gRPC server RegisterGRPC
// registered the services on ("" for none); pass listener.Addr().String(). New opens no
// listener; the card declares those addresses (or WithPublicURL / WithPublicGRPCAddr),
// and Start publishes it only after its self-check reached every declared interface
// there, over the real sockets. Shutdown withdraws the card and readiness and stops the
// executions; stopping the servers is the caller's. WithTLS / WithTLSConfig say that the
// caller's servers speak TLS. It cannot be combined with WithListeners, WithGRPCAddr or
// WithGRPCOnHTTP.
func WithMounted(httpAddr, grpcAddr string) Option {
	return func(o *options) { o.mounted, o.mountHTTP, o.mountGRPC = true, httpAddr, grpcAddr }
}

// WithSelfCheckHeader adds a header (gRPC metadata) to every self-check request, for an
// agent whose interceptors refuse unauthenticated calls: without a credential its
// interfaces answer the self-check auth_required, not served, and the card is not
// published. The self-check only dials this server's own interfaces (the local
// addresses, or those of WithMounted), so the credential goes nowhere else. Repeatable.
func WithSelfCheckHeader(key, value string) Option {
	return func(o *options) {
		if o.selfCheckHeader == nil {
			o.selfCheckHeader = http.Header{}
		}
		o.selfCheckHeader.Add(key, value)
	}
}

// WithTaskLimits bounds the default task store: a task in a terminal state (completed,
// failed, canceled, rejected) is evicted maxAge after its last update, and the least
// recently updated terminal tasks are evicted while more than maxCount are kept or all
// stored tasks take more than maxBytes (encoded). A task that is not
// terminal is never evicted. The defaults are DefaultTaskMaxAge, DefaultTaskMaxCount and
// DefaultTaskMaxBytes. The limits do not apply to a task store of one's own
// (WithHandlerOptions(a2asrv.WithTaskStore(...))).
func WithTaskLimits(maxAge time.Duration, maxCount int, maxBytes int64) Option {
	return func(o *options) { o.taskLimits = taskLimits{maxAge: maxAge, maxCount: maxCount, maxBytes: maxBytes} }
}

// WithMaxRequestBytes bounds the body of an HTTP request to a binding and the size of a
// received gRPC message. The default is DefaultMaxRequestBytes.
func WithMaxRequestBytes(n int64) Option { return func(o *options) { o.maxRequestBytes = n } }

// WithHandlerOptions passes a2a-go request-handler options through to
// a2asrv.NewHandler: a task store of one's own (a2asrv.WithTaskStore), call
// interceptors for authentication (a2asrv.WithCallInterceptors), concurrency limits,
// logging. They apply after the server's own, so a2asrv.WithTaskStore replaces the
// bounded default store. Push notifications and the extended card change what the card
// declares: use WithPushNotifications and WithExtendedAgentCard for them.
func WithHandlerOptions(opts ...a2asrv.RequestHandlerOption) Option {
	return func(o *options) { o.handlerOpts = append(o.handlerOpts, opts...) }
}

// WithPushNotifications serves the push-notification methods with a config store
// (NewPushConfigStore, a2a-go's in-memory store bounded, or one's own) and a sender
// (a2a-go's push.NewHTTPPushSender) through a2asrv.WithPushNotifications, and declares
// capabilities.pushNotifications in the derived card. Without both the methods answer
// PushNotificationNotSupported, and a hand-written card that declares the capability is
// refused.
func WithPushNotifications(store push.ConfigStore, sender push.Sender) Option {
	return func(o *options) { o.pushStore, o.pushSender = store, sender }
}

// WithExtendedAgentCard serves GetExtendedAgentCard from p
// (a2asrv.WithExtendedAgentCardProducer) and declares capabilities.extendedAgentCard in
// the derived card. Without it (or WithDerivedExtendedCard) the method answers
// UnsupportedOperation, and a hand-written card that declares the capability is refused.
func WithExtendedAgentCard(p a2asrv.ExtendedAgentCardProducer) Option {
	return func(o *options) { o.extendedCard, o.extendedDerived = p, false }
}

// WithDerivedExtendedCard serves GetExtendedAgentCard with the card derived from what
// this server serves (every interface, the capabilities, WithAgentInfo and
// WithSecurity), for an agent that shows authenticated clients nothing more than that,
// and declares capabilities.extendedAgentCard. It needs WithAgentInfo, also beside a
// hand-written card. WithExtendedAgentCard replaces it.
func WithDerivedExtendedCard() Option {
	return func(o *options) { o.extendedCard, o.extendedDerived = nil, true }
}

// WithSecurity declares security schemes and requirements in the derived card. The
// server does not authenticate: a call interceptor of one's own
// (WithHandlerOptions(a2asrv.WithCallInterceptors(...))) sets a2asrv.CallContext.User.
// With a scheme declared, the default task store lists tasks only for an authenticated
// user, and only that user's.
func WithSecurity(schemes a2a.NamedSecuritySchemes, requirements a2a.SecurityRequirementsOptions) Option {
	return func(o *options) { o.securitySchemes, o.securityReqs = schemes, requirements }
}

// withHooks installs test hooks (package tests only).
func withHooks(h hooks) Option { return func(o *options) { o.hooks = h } }
