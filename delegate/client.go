package delegate

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/wire"
)

// ErrClosed is returned by calls on a closed Client.
var ErrClosed = errors.New("delegate: client is closed")

// errNoEvent is the call error of a stream that ended with an error answer a2a-go did
// not read as one.
var errNoEvent = errors.New("the stream ended without an event")

// Client delegates A2A calls to one agent across the interfaces its card declares. It
// is safe for concurrent use. Close releases its connections.
type Client struct {
	card       *card.Card
	opts       options
	cache      *Cache
	key        string
	creds      addr.CredentialPolicy   // where the caller's headers may go
	named      addr.Origin             // the card's origin as the user named it (addr.DialModes)
	addrs      map[string]addr.Address // per interface key
	cands      []card.Interface
	skipped    []Skipped
	params     map[string]a2aclient.ServiceParams // per interface key
	withheld   map[string]bool                    // per interface key: headers not sent there
	httpClient *http.Client
	tlsConfig  *tls.Config
	// ownHTTP is the HTTP transport the client built (nil with WithHTTPClient, whose
	// transport belongs to the caller); Close closes its idle connections.
	ownHTTP *http.Transport

	mu         sync.Mutex
	closed     bool
	transports map[string]a2aclient.Transport

	mediaOnce  sync.Once
	mediaTypes *sync.Map // origins that want application/a2a+json (mediatype.go)
}

// New loads the card of target (an agent base URL, a card URL, a card file or "-" for
// standard input, as card.Load) and returns a Client for it. Card errors wrap
// card.ErrUnavailable or card.ErrMalformed.
func New(ctx context.Context, target string, opts ...Option) (*Client, error) {
	o := newOptions(opts)
	// One transport for the card fetch and the calls: the card's connection is reused
	// by the first call and closed by Close, instead of idling in a transport nobody closes.
	base := o.baseTransport()
	cd, err := card.Load(ctx, target, card.WithConn(o.conn), card.WithHTTPClient(&http.Client{Transport: base}))
	if err == nil {
		cd, err = o.checkCard(ctx, cd)
	}
	if err != nil {
		closeIdle(base, o)
		return nil, err
	}
	return newClient(cd, o, base)
}

// NewFromCard returns a Client for a loaded card. It fails with an *Error wrapping
// ErrNoCandidates when the card declares no interface this client can call.
func NewFromCard(c *card.Card, opts ...Option) (*Client, error) {
	if c == nil {
		return nil, errors.New("delegate: nil card")
	}
	o := newOptions(opts)
	c, err := o.checkCard(context.Background(), c)
	if err != nil {
		return nil, err
	}
	return newClient(c, o, o.baseTransport())
}

func newOptions(opts []Option) options {
	o := options{attemptTimeout: DefaultAttemptTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func (o *options) tls() *tls.Config {
	return o.conn.TLSConfig("")
}

func (o *options) baseTransport() http.RoundTripper {
	if o.httpClient != nil {
		if o.httpClient.Transport != nil {
			return o.httpClient.Transport
		}
		return http.DefaultTransport
	}
	t := o.conn.Transport()
	t.MaxIdleConnsPerHost = 64
	return t
}

// closeIdle closes the idle connections of a transport the client built itself.
func closeIdle(base http.RoundTripper, o options) {
	if t, ok := base.(*http.Transport); ok && o.httpClient == nil {
		t.CloseIdleConnections()
	}
}

func newClient(cd *card.Card, o options, base http.RoundTripper) (*Client, error) {
	c := &Client{
		card: cd, opts: o, cache: o.cache, key: agentKey(cd, o.bindings), named: card.NamedOrigin(cd),
		creds:  card.CardCredentials(cd, o.conn.CredentialHosts...),
		params: map[string]a2aclient.ServiceParams{}, withheld: map[string]bool{}, addrs: map[string]addr.Address{},
		transports: map[string]a2aclient.Transport{}, tlsConfig: o.tls(),
	}
	if c.cache == nil {
		c.cache = NewCache(WithCacheSize(8))
	}
	// Calls never follow a redirect: a 3xx is an outcome naming where it pointed, and
	// nothing (no message, no credential) is sent to the Location.
	// The attempt's trace context goes as traceparent, under the recorder.
	c.httpClient = &http.Client{Transport: recordingTransport{base: telemetry.Transport(base)},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if o.httpClient == nil {
		c.ownHTTP, _ = base.(*http.Transport)
	}
	c.cands, c.skipped = c.admit(candidates(cd, o.bindings, o.extra))
	if len(c.cands) == 0 {
		closeIdle(base, o)
		var notes []string
		for _, s := range c.skipped {
			if len(notes) == maxNotes {
				notes = append(notes, fmt.Sprintf("and %d more", len(c.skipped)-maxNotes))
				break
			}
			notes = append(notes, s.Interface.String()+": "+s.Reason)
		}
		note := "the card declares no interface"
		if len(notes) > 0 {
			note = strings.Join(notes, "; ")
		}
		return nil, &Error{Op: "New", Agent: c.agentName(), Kind: ErrNoCandidates, Note: note}
	}
	for _, iface := range c.cands {
		p := a2aclient.ServiceParams{a2a.SvcParamVersion: {iface.ProtocolVersion}}
		if len(o.conn.Header) > 0 {
			if c.credentialsAllowed(iface) {
				for k, vs := range o.conn.Header {
					p[k] = append([]string(nil), vs...)
				}
			} else {
				c.withheld[iface.Key()] = true
			}
		}
		c.params[iface.Key()] = p
	}
	return c, nil
}

// maxNotes bounds how many skipped interfaces an ErrNoCandidates note names.
const maxNotes = 8

// admit applies the dial policy and the interface bound to the ordered candidates: an
// address the policy refuses by name is skipped (never dialled), and only the first
// addr.Conn.MaxInterfaces candidates are kept, so a card with 13,500 interfaces costs at most
// that many attempts per call. Transports are built lazily, on an interface's first attempt.
func (c *Client) admit(cands []card.Interface, skipped []Skipped) ([]card.Interface, []Skipped) {
	limit := c.opts.conn.Interfaces()
	over := fmt.Sprintf("over the bound of %d interfaces per card (addr.Conn.MaxInterfaces, --max-interfaces)", limit)
	var kept []card.Interface
	for _, iface := range cands {
		if len(kept) >= limit {
			skipped = append(skipped, Skipped{Interface: iface, Reason: over})
			continue
		}
		a, err := addr.ParseAddress(iface.URL, iface.Binding)
		if err == nil {
			err = c.opts.conn.Dial.Check(a)
		}
		if err != nil {
			skipped = append(skipped, Skipped{Interface: iface, Reason: string(wire.Blocked) + ": " + err.Error()})
			continue
		}
		c.addrs[iface.Key()] = a
		kept = append(kept, iface)
	}
	return kept, skipped
}

// dialsTLS reports whether the client dials a over TLS by default: as its scheme
// says, else as addr.DialModes allows (TLS where either mode may be used).
func (c *Client) dialsTLS(a addr.Address) bool {
	useTLS, _ := c.tlsModes(a)
	return useTLS
}

// credentialsAllowed reports whether the caller's headers may go to iface: the
// credential policy (the card's origin as the user named it, scheme included, or a
// host the caller allowed) decides.
func (c *Client) credentialsAllowed(iface card.Interface) bool {
	a, ok := c.addrs[iface.Key()]
	if !ok {
		return false
	}
	useTLS, plain := c.tlsModes(a)
	// Where either mode may be used (decided on the first call), both must be allowed.
	return (!useTLS || c.creds.Allows(a, true)) && (!plain || c.creds.Allows(a, false))
}

// Card returns the card the client delegates by.
func (c *Client) Card() *card.Card { return c.card }

// Candidates returns the interfaces the client may call, in card order (before the
// cache's reordering).
func (c *Client) Candidates() []card.Interface { return append([]card.Interface(nil), c.cands...) }

// Skipped returns the declared interfaces the client will not call, and why.
func (c *Client) Skipped() []Skipped { return append([]Skipped(nil), c.skipped...) }

// Close releases the client's transports: gRPC connections and idle HTTP connections
// (the card fetch's included). Calls after Close fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	var errs []error
	for _, t := range c.transports {
		errs = append(errs, t.Destroy())
	}
	c.transports = nil
	if c.ownHTTP != nil {
		c.ownHTTP.CloseIdleConnections()
	}
	return errors.Join(errs...)
}

func (c *Client) agentName() string {
	if c.card.Name != "" {
		return fmt.Sprintf("%q", c.card.Name)
	}
	if c.card.Location != "" {
		return c.card.Location
	}
	return "agent"
}

// transport returns the a2a-go transport of an interface, built on first use the way
// way.go decides, after the dial policy checked where its host name resolves (an error wrapping
// addr.ErrRefusedAddress when it resolves to a refused address).
func (c *Client) transport(ctx context.Context, iface card.Interface) (a2aclient.Transport, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if t, ok := c.transports[iface.Key()]; ok {
		c.mu.Unlock()
		return t, nil
	}
	c.mu.Unlock()
	if err := c.opts.conn.Dial.CheckResolved(ctx, c.addrs[iface.Key()].Host); err != nil {
		return nil, err
	}
	w := c.way(ctx, iface) // may look the interface up: not under c.mu
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if t, ok := c.transports[iface.Key()]; ok {
		return t, nil
	}
	t, err := c.build(iface, w)
	if err != nil {
		return nil, err
	}
	c.transports[iface.Key()] = t
	return t, nil
}

// tenant is the tenant a request to iface carries. A2A requires a client to send the
// interface's declared tenant exactly (§8.3.2 rule 4), so a declared tenant wins over
// the caller's (a request for another tenant would be refused, or served for the wrong
// one). Where the interface declares none, the caller's tenant, if any, goes as given
// (a2a-go's client keeps it too).
func tenant(req string, iface card.Interface) string {
	if iface.Tenant != "" {
		return iface.Tenant
	}
	return req
}

// withMessageID returns req with a messageId set, so that every attempt of one call
// carries the same one.
func withMessageID(req *a2a.SendMessageRequest) *a2a.SendMessageRequest {
	if req == nil || req.Message == nil || req.Message.ID != "" {
		return req
	}
	r := *req
	m := *req.Message
	m.ID = a2a.NewMessageID()
	r.Message = &m
	return &r
}

// SendMessage sends a message (A2A SendMessage). After an ambiguous failure it is not
// resent to another interface unless WithResendSameMessageID allows it.
func (c *Client) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if req == nil {
		return nil, errors.New("delegate: nil SendMessageRequest")
	}
	req = withMessageID(req)
	return call(ctx, c, "SendMessage", false, func(ctx context.Context, t a2aclient.Transport, p a2aclient.ServiceParams, iface card.Interface) (a2a.SendMessageResult, error) {
		r := *req
		r.Tenant = tenant(req.Tenant, iface)
		return t.SendMessage(ctx, p, &r)
	})
}

// SendStreamingMessage sends a message and streams the agent's events (A2A
// SendStreamingMessage). It falls back only before the first event, and after an
// ambiguous failure only with WithResendSameMessageID.
func (c *Client) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if req == nil {
		return func(yield func(a2a.Event, error) bool) { yield(nil, errors.New("delegate: nil SendMessageRequest")) }
	}
	req = withMessageID(req)
	return c.stream(ctx, "SendStreamingMessage", false, func(ctx context.Context, t a2aclient.Transport, p a2aclient.ServiceParams, iface card.Interface) iter.Seq2[a2a.Event, error] {
		r := *req
		r.Tenant = tenant(req.Tenant, iface)
		return t.SendStreamingMessage(ctx, p, &r)
	})
}

// GetTask reads a task (A2A GetTask). It is idempotent: ambiguous failures fall back.
func (c *Client) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	if req == nil {
		return nil, errors.New("delegate: nil GetTaskRequest")
	}
	return call(ctx, c, "GetTask", true, func(ctx context.Context, t a2aclient.Transport, p a2aclient.ServiceParams, iface card.Interface) (*a2a.Task, error) {
		r := *req
		r.Tenant = tenant(req.Tenant, iface)
		return t.GetTask(ctx, p, &r)
	})
}

// ListTasks lists tasks (A2A ListTasks). It is idempotent: ambiguous failures fall back.
func (c *Client) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if req == nil {
		req = &a2a.ListTasksRequest{}
	}
	return call(ctx, c, "ListTasks", true, func(ctx context.Context, t a2aclient.Transport, p a2aclient.ServiceParams, iface card.Interface) (*a2a.ListTasksResponse, error) {
		r := *req
		r.Tenant = tenant(req.Tenant, iface)
		return t.ListTasks(ctx, p, &r)
	})
}

// CancelTask cancels a task (A2A CancelTask). Cancelling twice is harmless, so it is
// treated as idempotent: ambiguous failures fall back.
func (c *Client) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	if req == nil {
		return nil, errors.New("delegate: nil CancelTaskRequest")
	}
	return call(ctx, c, "CancelTask", true, func(ctx context.Context, t a2aclient.Transport, p a2aclient.ServiceParams, iface card.Interface) (*a2a.Task, error) {
		r := *req
		r.Tenant = tenant(req.Tenant, iface)
		return t.CancelTask(ctx, p, &r)
	})
}

// SubscribeToTask streams a task's events (A2A SubscribeToTask). It falls back only
// before the first event (ambiguous failures included: it is a read).
func (c *Client) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	if req == nil {
		return func(yield func(a2a.Event, error) bool) {
			yield(nil, errors.New("delegate: nil SubscribeToTaskRequest"))
		}
	}
	return c.stream(ctx, "SubscribeToTask", true, func(ctx context.Context, t a2aclient.Transport, p a2aclient.ServiceParams, iface card.Interface) iter.Seq2[a2a.Event, error] {
		r := *req
		r.Tenant = tenant(req.Tenant, iface)
		return t.SubscribeToTask(ctx, p, &r)
	})
}
