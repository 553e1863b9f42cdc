package guard

import (
	"log/slog"
	"net"
	"time"

	"github.com/a2abind/a2abind/signature"
)

// Defaults for the options.
const (
	// DefaultInterval is how often the upstream card is fetched and probed again.
	DefaultInterval = 10 * time.Second
	// DefaultProbeTimeout bounds one interface's probe (capped by the interval).
	DefaultProbeTimeout = 5 * time.Second
	// DefaultShutdownTimeout bounds how long Shutdown lets proxied requests drain.
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultMaxProxied bounds the requests (streams included) proxied at once.
	DefaultMaxProxied = 512
)

// Option configures New. Options are applied in order; later ones win.
type Option func(*options)

type options struct {
	listenAddr      string
	listener        net.Listener
	normalize       bool
	interval        time.Duration
	probeTimeout    time.Duration
	shutdownTimeout time.Duration
	via             []Mapping
	maxProxied      int
	logger          *slog.Logger
	accessLog       *slog.Logger
	signing         *signing
	requireSig      bool
	verify          []signature.VerifyOption
}

// WithListenAddr is where the guard listens (card, /healthz, /readyz and the proxy).
// The default is 127.0.0.1:0.
func WithListenAddr(addr string) Option { return func(o *options) { o.listenAddr = addr } }

// WithListener serves on a listener the caller opened (tests, socket activation). The
// guard owns it from then on and closes it on Shutdown, or when New fails.
func WithListener(l net.Listener) Option { return func(o *options) { o.listener = l } }

// WithNormalize publishes the truth instead of withholding a lying card: only the
// interfaces that are served, with a served preferred entry (see Normalize).
func WithNormalize() Option { return func(o *options) { o.normalize = true } }

// WithInterval sets how often the upstream card is fetched and probed again; changes
// upstream are followed within one interval. The default is DefaultInterval.
func WithInterval(d time.Duration) Option { return func(o *options) { o.interval = d } }

// WithProbeTimeout bounds one interface's probe. The default is DefaultProbeTimeout;
// it is capped by the interval, so that a round ends before the next is due.
func WithProbeTimeout(d time.Duration) Option { return func(o *options) { o.probeTimeout = d } }

// WithShutdownTimeout bounds how long Shutdown lets proxied requests (streams
// included) drain before it closes their connections. The default is
// DefaultShutdownTimeout.
func WithShutdownTimeout(d time.Duration) Option { return func(o *options) { o.shutdownTimeout = d } }

// WithProbeVia probes through the mappings instead of the card's own addresses (see
// Mapping and ParseMapping); the published card is never rewritten by them.
func WithProbeVia(m ...Mapping) Option { return func(o *options) { o.via = append(o.via, m...) } }

// WithMaxProxied bounds how many requests the guard proxies at once, streams (SSE,
// gRPC) included, so that clients holding streams open cannot exhaust it; beyond the
// bound a request gets 503 with Retry-After (gRPC: UNAVAILABLE). n <= 0 means
// DefaultMaxProxied.
func WithMaxProxied(n int) Option { return func(o *options) { o.maxProxied = n } }

// WithAccessLog logs one line per request the guard answers or proxies to l
// (accesslog: binding, A2A method, status or A2A error, duration, bytes; never bodies
// or credentials). Off by default.
func WithAccessLog(l *slog.Logger) Option { return func(o *options) { o.accessLog = l } }

// WithRequireSignature makes every round verify the upstream card's signatures first
// (signature.VerifySignatures with opts: signature.WithKeySet, signature.WithJKUOrigins, ...) and
// withhold a card none of whose signatures verifies and covers every member used to
// connect (Verification.Require: unsigned, invalid, unverified and partial are refused),
// before any interface is probed: the guard never dials an address a required
// signature does not cover. With WithNormalize the same holds: the normalizer only
// removes interfaces from a verified card, and WithCardSigning never re-signs a card
// whose own signature did not cover it. Off by default (each jku fetch is bounded by the
// probe timeout unless opts say otherwise).
func WithRequireSignature(opts ...signature.VerifyOption) Option {
	return func(o *options) { o.requireSig, o.verify = true, append(o.verify, opts...) }
}

// WithLogger sets the structured logger. The default discards everything.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

func newOptions(opts []Option) options {
	o := options{
		listenAddr: "127.0.0.1:0", interval: DefaultInterval, probeTimeout: DefaultProbeTimeout,
		shutdownTimeout: DefaultShutdownTimeout,
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxProxied <= 0 {
		o.maxProxied = DefaultMaxProxied
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	return o
}
