package probe

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// tlsMode says whether a request uses TLS.
type tlsMode int

const (
	// tlsAuto follows the URL: https and grpcs use TLS, http and grpc do not; a bare
	// host:port gRPC address is tried in plaintext first, then with TLS.
	tlsAuto tlsMode = iota
	tlsOn
	tlsOff
)

func (m tlsMode) flip() tlsMode {
	if m == tlsOn {
		return tlsOff
	}
	return tlsOn
}

func (m tlsMode) String() string {
	switch m {
	case tlsOn:
		return "TLS"
	case tlsOff:
		return "plaintext"
	}
	return "auto"
}

// endpoint is a declared interface URL taken apart by addr.ParseAddress, with the
// parts the binding probers use.
type endpoint struct {
	addr     addr.Address
	raw      string
	scheme   string // as written, lower case; "" for a bare host:port
	hostport string // always with a port
	path     string // URL path, for the HTTP bindings
	query    string
	bases    *httpBases // the HTTP URLs built and parsed (requrl.go)
}

// parseEndpoint reads a declared interface URL for its binding (addr.ParseAddress: the
// one address model) and refuses what the probe does not dial: no port to dial, or an
// address the dial policy refuses by name.
func parseEndpoint(raw string, b a2a.TransportProtocol) (endpoint, error) {
	a, err := addr.ParseAddress(raw, b)
	if err != nil {
		return endpoint{}, err
	}
	if !a.Local() && a.HostPort() == "" {
		return endpoint{}, &addr.AddressError{URL: raw, Problem: fmt.Sprintf("has scheme %q, which names no port a2abind can probe", a.Scheme)}
	}
	return endpoint{addr: a, raw: raw, scheme: a.Scheme, hostport: a.HostPort(), path: a.Path, query: a.Query, bases: new(httpBases)}, nil
}

// parsedEndpoint is parseEndpoint's answer for one interface URL and binding, with the
// notes about the URL's form (endpoint.notes) when it parsed.
type parsedEndpoint struct {
	ep    endpoint
	err   error
	notes []string
}

func readEndpoint(raw string, b a2a.TransportProtocol) parsedEndpoint {
	ep, err := parseEndpoint(raw, b)
	if err != nil {
		return parsedEndpoint{err: err}
	}
	return parsedEndpoint{ep: ep, notes: ep.notes(b)}
}

// endpointKey is an interface URL and the canonical spelling of its binding.
type endpointKey struct {
	raw     string
	binding a2a.TransportProtocol
}

// endpoints remembers readEndpoint's answers, a pure function of the URL and binding,
// so that a long-lived Engine reads each interface URL once rather than once per probe.
// It holds at most max answers; when full it starts over.
type endpoints struct {
	mu  sync.Mutex
	m   map[endpointKey]*parsedEndpoint // each read once, then only read
	max int
}

// address is addr.ParseAddress of raw for binding b, from the memo when the URL was
// read before (card.CardCredentialsWith reads the card's preferred interface with it).
func (c *endpoints) address(raw string, b a2a.TransportProtocol) (addr.Address, error) {
	cb, _ := addr.CanonicalBinding(b)
	c.mu.Lock()
	p, ok := c.m[endpointKey{raw, cb}]
	c.mu.Unlock()
	if ok && p.err == nil {
		return p.ep.addr, nil
	}
	return addr.ParseAddress(raw, b)
}

// read returns readEndpoint's answer for each interface's URL and binding (canonical
// spelling, as a run reads it), shared with the memo: the caller only reads it.
func (c *endpoints) read(ifaces []card.Interface) []*parsedEndpoint {
	eps := make([]*parsedEndpoint, len(ifaces))
	c.mu.Lock()
	defer c.mu.Unlock()
	for n, i := range ifaces {
		b, _ := addr.CanonicalBinding(i.Binding)
		k := endpointKey{i.URL, b}
		p, ok := c.m[k]
		if !ok {
			r := readEndpoint(i.URL, b)
			p = &r
			if len(c.m) >= c.max {
				clear(c.m)
			}
			c.m[k] = p
		}
		eps[n] = p
	}
	return eps
}

// explicitTLS reports whether the URL says TLS or plaintext (https, grpcs, http, grpc).
func (e endpoint) explicitTLS() bool { return e.addr.TLS != addr.TLSUnknown }

// secure reports whether mode means TLS for this endpoint. For tlsAuto on a bare
// address it reports false (plaintext first).
func (e endpoint) secure(mode tlsMode) bool {
	switch mode {
	case tlsOn:
		return true
	case tlsOff:
		return false
	}
	return e.addr.TLS == addr.TLSYes
}

// httpURL is the URL the HTTP bindings use: the declared one, or http(s)://host:port
// for a bare address, with the scheme the TLS mode asks for.
func (e endpoint) httpURL(mode tlsMode) string { return e.base(e.secure(mode)).s }

// siblings returns the other declared HTTP URLs on the same host:port, where a binding
// declared here may really be mounted.
func (e endpoint) siblings(urls []string) []endpoint {
	var out []endpoint
	seen := map[string]bool{e.path: true}
	for _, u := range urls {
		s, err := parseEndpoint(u, a2a.TransportProtocolJSONRPC)
		if err != nil || s.hostport != e.hostport || seen[s.path] {
			continue
		}
		seen[s.path] = true
		out = append(out, s)
	}
	return out
}

// notes are remarks about the URL form itself for a binding.
func (e endpoint) notes(b a2a.TransportProtocol) []string {
	var n []string
	if b == a2a.TransportProtocolGRPC && !e.addr.GoGRPCAccepts() {
		n = append(n, fmt.Sprintf("gRPC URL has a %s:// scheme: Go clients (grpc.NewClient) reject it, clients that strip it accept it", e.scheme))
	}
	return n
}

// tlsConfig is the client TLS configuration of a probe.
func (o *options) tlsConfig(serverName string, alpn ...string) *tls.Config {
	return o.conn.TLSConfig(serverName, alpn...)
}

// transport is the keep-alive HTTP transport of one TLS setting of an Engine: its
// connections are reused from probe to probe and closed after the Engine's idle
// timeout (or by Engine.Close); headers are bounded, TLS is as the options say, and
// every connection is dialled by the Engine (its dial control, its count) with reads
// held until the first write.
func (e *Engine) transport(o *options) *http.Transport {
	return &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		TLSClientConfig:        o.tlsConfig(""), // the transport fills in each host's name
		ForceAttemptHTTP2:      true,
		MaxResponseHeaderBytes: maxBody,
		TLSHandshakeTimeout:    DefaultTimeout,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return e.dialWriteFirst(ctx, network, addr, o.conn.Dial)
		},
		MaxIdleConns:        e.cfg.maxIdle,
		MaxIdleConnsPerHost: e.cfg.maxPerHost,
		IdleConnTimeout:     e.cfg.idle,
		// A probe's requests and answers are a few hundred bytes to a card's few kB:
		// buffers of a quarter and half the default leave a fleet round less to
		// allocate per connection, at the cost of a second read for a larger answer.
		WriteBufferSize: connWriteBuffer,
		ReadBufferSize:  connReadBuffer,
	}
}

// connWriteBuffer and connReadBuffer are the HTTP connections' buffer sizes.
const connWriteBuffer, connReadBuffer = 1 << 10, 2 << 10

// dialWriteFirst dials a connection whose reads wait for the first write. A server
// that speaks first (an h2c gRPC server sends its SETTINGS frame on accept) then has
// its bytes read as the answer to the probe's request, instead of net/http logging
// "Unsolicited response received on idle HTTP channel" on the process's stderr.
func (e *Engine) dialWriteFirst(ctx context.Context, network, addr string, policy *addr.DialPolicy) (net.Conn, error) {
	c, err := e.dial(ctx, network, addr, policy)
	if err != nil {
		return nil, err
	}
	return &writeFirstConn{Conn: c, wrote: make(chan struct{})}, nil
}

type writeFirstConn struct {
	net.Conn
	once  sync.Once
	wrote chan struct{}
}

func (c *writeFirstConn) release() { c.once.Do(func() { close(c.wrote) }) }

func (c *writeFirstConn) Write(p []byte) (int, error) {
	c.release()
	return c.Conn.Write(p)
}

func (c *writeFirstConn) Read(p []byte) (int, error) {
	<-c.wrote
	return c.Conn.Read(p)
}

func (c *writeFirstConn) Close() error {
	c.release()
	return c.Conn.Close()
}
