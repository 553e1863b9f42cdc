package delegate

import (
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// Option configures New and NewFromCard.
type Option func(*options)

type options struct {
	conn           addr.Conn // headers, TLS, dial policy, credential hosts, interface bound
	bindings       []a2a.TransportProtocol
	cache          *Cache
	resend         bool
	attemptTimeout time.Duration
	httpClient     *http.Client
	plaintextGRPC  bool
	verifier       CardVerifier            // verify.go
	loopback       func(addr.Address) bool // tests: which addresses count as loopback (way.go)
	extra          []card.Interface        // WithInterfaces
	tracerProvider trace.TracerProvider    // WithTracerProvider (spans.go); nil: the global one
}

// WithConn sets the connection configuration, for the card fetch of New and every
// call, replacing an earlier one (see addr.Conn): the headers (credentials: sent on the
// card fetch of New, and to the interfaces on the card's own origin and the
// CredentialHosts only), TLS roots or insecure (HTTP and gRPC; not with WithHTTPClient),
// the dial policy (an interface it refuses by name is Skipped; one whose host resolves
// to a refused address is an attempt with outcome wire.Blocked, and nothing is sent
// there; the card fetch of New goes through it too, unless WithHTTPClient is given),
// and the bound on the interfaces attempted (the first n in candidate order; the rest
// are Skipped).
func WithConn(c addr.Conn) Option {
	return func(o *options) { o.conn = c; o.conn.Header = c.Header.Clone() }
}

// WithBindings restricts the candidates to the given bindings and orders them by the
// given order (card order within one binding). Names are compared case-insensitively.
func WithBindings(bindings ...a2a.TransportProtocol) Option {
	return func(o *options) { o.bindings = append(o.bindings, bindings...) }
}

// WithCache shares a Cache between clients. By default each Client has its own.
func WithCache(c *Cache) Option { return func(o *options) { o.cache = c } }

// WithResendSameMessageID allows SendMessage and SendStreamingMessage to try the next
// interface after an ambiguous failure (the request may have reached the agent), with
// the same messageId, so that an agent that de-duplicates on it does not run it twice.
// Without it such a call stops: a message is never delivered twice because of a fallback.
func WithResendSameMessageID() Option { return func(o *options) { o.resend = true } }

// DefaultAttemptTimeout bounds an attempt unless WithAttemptTimeout says otherwise (it is
// a2a-go's own request timeout).
const DefaultAttemptTimeout = 3 * time.Minute

// WithAttemptTimeout bounds each attempt of a unary call, and a stream's wait for its
// first event, so that a silent interface leaves time for the next one. A timeout before
// the request was sent falls back; after, it is ambiguous. The call's context bounds the
// whole call. d <= 0 removes the per-attempt bound. Default: DefaultAttemptTimeout.
func WithAttemptTimeout(d time.Duration) Option { return func(o *options) { o.attemptTimeout = d } }

// WithHTTPClient uses the given client's Transport for the HTTP bindings and the card
// fetch (a2abind wraps it to record wire evidence). TLS options do not apply to it.
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithPlaintextGRPC speaks plaintext gRPC to interfaces declared as a bare host:port.
// By default they get TLS unless the card itself was fetched over plain http:// (a
// grpc:// or http:// scheme asks for plaintext, grpcs:// or https:// for TLS).
func WithPlaintextGRPC() Option { return func(o *options) { o.plaintextGRPC = true } }

// WithInterfaces calls these interfaces, which the card does not declare, before the
// card's own, in the order given: an address and version a probe proved served (an
// a2a-go agent run with "a2a serve --protocol 0.3" publishes 1.0 and serves 0.3). Made
// by hand, they have the zero card.Source, so attempts show them as undeclared; each is
// checked like a declared interface (address, dial policy, credential scope,
// addr.Conn.MaxInterfaces). WithBindings does not filter them.
func WithInterfaces(ifaces ...card.Interface) Option {
	return func(o *options) { o.extra = append(o.extra, ifaces...) }
}
