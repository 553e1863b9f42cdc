package probe

// The options of Interface, Card and the Engine: the connection configuration
// (addr.Conn) and the probe's own budget.

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// Option configures Interface and Card.
type Option func(*options)

type options struct {
	conn     addr.Conn // headers, TLS, dial policy, credential hosts, interface bound
	timeout  time.Duration
	siblings []string                            // other URLs the card declares: a binding found there is noted, not attributed
	creds    *addr.CredentialPolicy              // nil until run: Card sets the card's, Interface the address's
	engine   *Engine                             // whose connections and caps the requests use
	via      func(card.Interface) (string, bool) // WithProbeVia: where each interface is probed

	noCapabilities bool          // WithCapabilities(false): Check and Targets probe the interfaces only
	capMaxAge      time.Duration // WithCapabilityMaxAge
	capMaxAgeSet   bool

	concurrency int                                          // Engine.Targets: targets at once
	cardOpts    []card.Option                                // Engine.Targets: card.Load options
	perTarget   time.Duration                                // Engine.Targets: bound on each target, card and probes
	admit       func(context.Context, *card.Card) *card.Card // Engine.Targets: WithAdmit
}

// WithConn sets the connection configuration, replacing an earlier one: the headers
// (credentials, sent where the credential policy allows: see WithCredentialPolicy), TLS
// roots or insecure, the dial policy (by default unix:, file:, userinfo, link-local,
// unspecified and cloud-metadata addresses are refused: such an interface is reported
// Blocked and nothing is sent), credential hosts, and the bound on the interfaces Card
// probes (a card is input from the network: 13,500 declared interfaces must not become
// 13,500 probes). See addr.Conn.
func WithConn(c addr.Conn) Option {
	return func(o *options) { o.conn = c; o.conn.Header = c.Header.Clone() }
}

// WithCredentialPolicy scopes the headers of WithConn: they go only to the interfaces p
// allows. Card uses, by default, card.CardCredentials: the card's origin and the
// connection's CredentialHosts; Interface, by default, addr.AddressCredentials of
// the address it is given (so a TLS address's headers never go out in plaintext).
func WithCredentialPolicy(p addr.CredentialPolicy) Option {
	return func(o *options) { o.creds = &p }
}

// cardCredentials gives o the card's credential policy (card.CardCredentials, by way
// of the connection settings, the interface address read with parse) unless
// WithCredentialPolicy gave one: Card's default. Without headers to send there is no
// policy to apply, and none is read.
func (o *options) cardCredentials(c *card.Card, parse func(string, a2a.TransportProtocol) (addr.Address, error)) {
	if o.creds == nil && len(o.conn.Header) > 0 {
		p := card.CardCredentialsWith(c, parse, o.conn.CredentialHosts...)
		o.creds = &p
	}
}

// addressCredentials gives o the credential policy of the one address a (its origin)
// unless it has one: the default of a probe of an interface outside Card. As for
// cardCredentials, none is read without headers to send.
func (o *options) addressCredentials(a addr.Address) {
	if o.creds == nil && len(o.conn.Header) > 0 {
		p := addr.AddressCredentials(a, o.conn.CredentialHosts...)
		o.creds = &p
	}
}

// credentialsFor reports whether the caller's headers may go to ep, dialled over TLS
// or not. Without a policy (a prober called outside run) nothing is sent.
func (o *options) credentialsFor(ep endpoint, useTLS bool) bool {
	return o.creds != nil && o.creds.Allows(ep.addr, useTLS)
}

// withheldNote is the detail of a request sent without the caller's headers.
const withheldNote = "credentials withheld: not the card's origin (allow the host with --credential-host)"

// WithTimeout sets the budget of one interface's probe, all its requests included. The
// default is DefaultTimeout; the context bounds everything in any case.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

func newOptions(opts []Option) *options {
	o := &options{timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(o)
	}
	if o.timeout <= 0 {
		o.timeout = DefaultTimeout
	}
	return o
}
