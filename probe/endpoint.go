package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
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

// endpoint is a declared interface URL taken apart.
type endpoint struct {
	raw      string
	scheme   string // "" for a bare host:port, else http, https, grpc or grpcs
	hostport string // always with a port
	path     string // URL path, for the HTTP bindings
	query    string
}

// parseEndpoint accepts http(s):// and grpc(s):// URLs, bare host:port addresses and
// grpc-go targets (dns:///host:port, passthrough:///host:port).
func parseEndpoint(raw string) (endpoint, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return endpoint{}, errors.New("the interface has no URL")
	}
	for _, target := range []string{"dns:///", "passthrough:///"} {
		// grpc-go target syntax: the address follows the (empty) authority.
		if rest, ok := strings.CutPrefix(s, target); ok {
			s = rest
		}
	}
	if !strings.Contains(s, "://") {
		host, port, err := net.SplitHostPort(s)
		if err != nil || host == "" || !validPort(port) {
			return endpoint{}, fmt.Errorf("%q is neither a URL nor a host:port address", raw)
		}
		if u, err := url.Parse("http://" + s); err != nil || u.Host != s || u.Path != "" {
			return endpoint{}, fmt.Errorf("%q is not a valid host:port address", raw)
		}
		return endpoint{raw: raw, hostport: s}, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return endpoint{}, fmt.Errorf("%q is not a valid URL: %v", raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	defPort := ""
	switch scheme {
	case "http", "grpc":
		defPort = "80"
	case "https", "grpcs":
		defPort = "443"
	default:
		return endpoint{}, fmt.Errorf("%q: scheme %q is not http, https, grpc or grpcs", raw, u.Scheme)
	}
	if u.Hostname() == "" || u.Opaque != "" {
		return endpoint{}, fmt.Errorf("%q has no host", raw)
	}
	port := u.Port()
	if port == "" {
		port = defPort
	}
	if !validPort(port) {
		return endpoint{}, fmt.Errorf("%q: port %q is not a number from 1 to 65535", raw, port)
	}
	hostport := net.JoinHostPort(u.Hostname(), port)
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		return endpoint{}, fmt.Errorf("%q: host %q is not valid", raw, u.Hostname())
	}
	return endpoint{
		raw: raw, scheme: scheme, hostport: hostport,
		path: strings.TrimSuffix(u.EscapedPath(), "/"), query: u.RawQuery,
	}, nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n <= 65535 && strconv.Itoa(n) == p
}

// secure reports whether mode means TLS for this endpoint. For tlsAuto on a bare
// address it reports false (plaintext first).
func (e endpoint) secure(mode tlsMode) bool {
	switch mode {
	case tlsOn:
		return true
	case tlsOff:
		return false
	}
	return e.scheme == "https" || e.scheme == "grpcs"
}

// httpURL is the URL the HTTP bindings use: the declared one, or http(s)://host:port
// for a bare address, with the scheme the TLS mode asks for.
func (e endpoint) httpURL(mode tlsMode) string {
	scheme := "http"
	if e.secure(mode) {
		scheme = "https"
	}
	s := scheme + "://" + e.hostport + e.path
	if e.query != "" {
		s += "?" + e.query
	}
	return s
}

// siblings returns the other declared HTTP URLs on the same host:port, where a binding
// declared here may really be mounted.
func (e endpoint) siblings(urls []string) []endpoint {
	var out []endpoint
	seen := map[string]bool{e.path: true}
	for _, u := range urls {
		s, err := parseEndpoint(u)
		if err != nil || s.hostport != e.hostport || s.scheme == "" || seen[s.path] {
			continue
		}
		if s.scheme != "http" && s.scheme != "https" {
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
	switch {
	case b == a2a.TransportProtocolGRPC && e.scheme != "":
		n = append(n, fmt.Sprintf("gRPC URL has a %s:// scheme: Go clients (grpc.NewClient) reject it, clients that strip it accept it", e.scheme))
	case b != a2a.TransportProtocolGRPC && e.scheme == "":
		n = append(n, "no http(s) scheme: probed as http://"+e.hostport)
	case b != a2a.TransportProtocolGRPC && (e.scheme == "grpc" || e.scheme == "grpcs"):
		n = append(n, fmt.Sprintf("%s:// scheme on an HTTP binding: probed over HTTP", e.scheme))
	}
	return n
}

// tlsConfig is the client TLS configuration of a probe.
func (o *options) tlsConfig(serverName string, alpn ...string) *tls.Config {
	return &tls.Config{
		ServerName:         serverName,
		RootCAs:            o.roots,
		InsecureSkipVerify: o.insecure, //nolint:gosec // only with --insecure
		NextProtos:         alpn,
		MinVersion:         tls.VersionTLS12,
	}
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
		DialContext:            e.dialWriteFirst,
		MaxIdleConns:           e.cfg.maxIdle,
		MaxIdleConnsPerHost:    e.cfg.maxPerHost,
		IdleConnTimeout:        e.cfg.idle,
	}
}

// dialWriteFirst dials a connection whose reads wait for the first write. A server
// that speaks first (an h2c gRPC server sends its SETTINGS frame on accept) then has
// its bytes read as the answer to the probe's request, instead of net/http logging
// "Unsolicited response received on idle HTTP channel" on the process's stderr.
func (e *Engine) dialWriteFirst(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := e.dial(ctx, network, addr)
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
