package addr

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TLS says whether an interface address asks for TLS.
type TLS int

const (
	// TLSUnknown: the address does not say (a bare gRPC host:port, dns:///host:port).
	TLSUnknown TLS = iota
	// TLSYes: https:// or grpcs://.
	TLSYes
	// TLSNo: http:// or grpc://.
	TLSNo
)

// String renders the expectation as "TLS", "plaintext" or "unknown".
func (t TLS) String() string {
	switch t {
	case TLSYes:
		return "TLS"
	case TLSNo:
		return "plaintext"
	}
	return "unknown"
}

// ErrAddress is matched (errors.Is) by every *AddressError.
var ErrAddress = errors.New("unusable interface address")

// AddressError says why an interface URL is not an address of its binding.
type AddressError struct {
	// URL is the address as declared.
	URL string
	// Problem says in one clause what is wrong with it.
	Problem string
}

// Error renders `"grpc://h" : problem`.
func (e *AddressError) Error() string { return fmt.Sprintf("%q %s", e.URL, e.Problem) }

// Is makes errors.Is(err, ErrAddress) true.
func (e *AddressError) Is(target error) bool { return target == ErrAddress }

// Address is an interface URL taken apart for its binding: the one meaning a2abind
// gives every form (see docs/addresses.md). lint, probe, server and delegate all read
// addresses through ParseAddress.
type Address struct {
	// Raw is the address as declared.
	Raw string
	// Scheme is the scheme as written, lower case: http, https, grpc, grpcs, dns,
	// passthrough, unix, file or a custom binding's scheme; "" for a bare host:port.
	Scheme string
	// Host is the host, lower case, without IPv6 brackets; "" for unix: and file:.
	Host string
	// Port is the port, the scheme's default filled in (http and grpc 80, https and
	// grpcs 443).
	Port string
	// Path is the escaped path without a trailing slash ("" for none). gRPC ignores it.
	Path string
	// Query is the raw query, for the HTTP bindings.
	Query string
	// TLS is what the address says about TLS.
	TLS TLS
	// UserInfo reports a user:password@ part (never dialled: the dial policy refuses it).
	UserInfo bool
	// GRPC reports that the address was parsed for the GRPC binding.
	GRPC bool
}

// localSchemes name local sockets and files: parsed so the dial policy can name them,
// never dialled.
var localSchemes = map[string]bool{"unix": true, "unix-abstract": true, "file": true, "vsock": true}

// grpcResolvers are grpc-go target schemes whose endpoint follows an empty authority
// ("dns:///host:port"); the address is the endpoint, its TLS unknown.
var grpcResolvers = []string{"dns:///", "passthrough:///"}

// ParseAddress parses an interface URL for its binding (compared case-insensitively).
//
//   - GRPC: host:port (A2A v1.0.1), grpc://host[:port] (plaintext), grpcs://host[:port]
//     (TLS), http:// and https:// (plaintext / TLS; Go gRPC clients reject them, lint
//     warns), dns:///host:port and passthrough:///host:port. A path is ignored. A bare
//     host without a port is an error.
//   - JSONRPC, HTTP+JSON: an absolute http:// or https:// URL; anything else is an error.
//   - A custom binding: an http(s) URL as above, or any absolute URL with a host.
//
// unix:, unix-abstract:, vsock: and file: addresses parse (Host empty) so the dial
// policy can refuse them by name. Errors are *AddressError.
func ParseAddress(raw string, binding a2a.TransportProtocol) (Address, error) {
	s := strings.TrimSpace(raw)
	fail := func(format string, args ...any) (Address, error) {
		return Address{}, &AddressError{URL: raw, Problem: fmt.Sprintf(format, args...)}
	}
	if s == "" {
		return fail("is empty")
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fail("contains control characters")
	}
	b, core := CanonicalBinding(binding)
	grpc := b == a2a.TransportProtocolGRPC
	if scheme, rest, ok := strings.Cut(s, ":"); ok && localSchemes[strings.ToLower(scheme)] {
		return Address{Raw: raw, Scheme: strings.ToLower(scheme), Path: strings.TrimLeft(rest, "/"), GRPC: grpc}, nil
	}
	if grpc {
		for _, p := range grpcResolvers {
			if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
				a, err := parseHostPort(raw, s[len(p):])
				a.Scheme, a.GRPC = strings.TrimSuffix(strings.ToLower(p), ":///"), true
				return a, err
			}
		}
		if !strings.Contains(s, "://") {
			a, err := parseHostPort(raw, strings.TrimSuffix(s, "/"))
			a.GRPC = true
			return a, err
		}
	}
	if !strings.Contains(s, "://") {
		if grpc {
			return fail("is neither host:port nor a URL")
		}
		return fail("is not an absolute http(s) URL")
	}
	u, err := url.Parse(s)
	if err != nil {
		return fail("is not a valid URL: %v", errors.Unwrap(err))
	}
	a := Address{Raw: raw, Scheme: strings.ToLower(u.Scheme), Query: u.RawQuery, UserInfo: u.User != nil, GRPC: grpc}
	var defPort string
	switch a.Scheme {
	case "http":
		defPort, a.TLS = "80", TLSNo
	case "https":
		defPort, a.TLS = "443", TLSYes
	case "grpc":
		defPort, a.TLS = "80", TLSNo
	case "grpcs":
		defPort, a.TLS = "443", TLSYes
	}
	switch {
	case grpc && defPort == "":
		return fail("has scheme %q; a GRPC address is host:port (or grpc://, grpcs://, http(s)://, dns:///)", u.Scheme)
	case !grpc && core && a.Scheme != "http" && a.Scheme != "https":
		return fail("is not an http(s) URL (scheme %q)", u.Scheme)
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return fail("has no host")
	}
	a.Host = strings.ToLower(u.Hostname())
	a.Port = u.Port()
	if a.Port == "" {
		a.Port = defPort
	}
	if a.Port == "" && !core {
		// A custom binding with a scheme a2abind does not know: no port to dial.
		a.Path = strings.TrimSuffix(u.EscapedPath(), "/")
		return a, nil
	}
	if !validPort(a.Port) {
		return fail("has port %q, not a number from 1 to 65535", a.Port)
	}
	if err := checkHost(a.Host); err != "" {
		return fail("%s", err)
	}
	if !grpc {
		a.Path = strings.TrimSuffix(u.EscapedPath(), "/")
	}
	return a, nil
}

// parseHostPort reads a bare host:port (gRPC).
func parseHostPort(raw, s string) (Address, error) {
	fail := func(format string, args ...any) (Address, error) {
		return Address{}, &AddressError{URL: raw, Problem: fmt.Sprintf(format, args...)}
	}
	host, port, err := net.SplitHostPort(s)
	switch {
	case err != nil && strings.Contains(err.Error(), "missing port"):
		return fail("names no port (write host:port)")
	case err != nil || host == "":
		return fail("is neither host:port nor a URL")
	case !validPort(port):
		return fail("has port %q, not a number from 1 to 65535", port)
	}
	if strings.Contains(host, "%") {
		return fail("has an IPv6 zone, which a2abind does not dial")
	}
	if p := checkHost(host); p != "" {
		return fail("%s", p)
	}
	return Address{Raw: raw, Host: strings.ToLower(host), Port: port}, nil
}

// checkHost says what is wrong with a host name, or "".
func checkHost(host string) string {
	if strings.Contains(host, "%") {
		return "has an IPv6 zone, which a2abind does not dial"
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return ""
	}
	u, err := url.Parse("http://" + net.JoinHostPort(host, "1"))
	if err != nil || u.Hostname() != host || strings.ContainsAny(host, "/ @[]%\\?#:") || strings.Trim(host, ".") == "" {
		return fmt.Sprintf("has host %q, which is not a host name or IP address", host)
	}
	return ""
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n <= 65535 && strconv.Itoa(n) == p
}

// Local reports a unix:, unix-abstract:, vsock: or file: address.
func (a Address) Local() bool { return localSchemes[a.Scheme] }

// HostPort is host:port, with brackets around an IPv6 host; "" for a local address.
func (a Address) HostPort() string {
	if a.Host == "" || a.Port == "" {
		return ""
	}
	return net.JoinHostPort(a.Host, a.Port)
}

// HTTPURL is the URL an HTTP request to the address uses, over TLS or not: the
// declared path and query on http(s)://host:port.
func (a Address) HTTPURL(useTLS bool) string {
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	s := scheme + "://" + a.HostPort() + a.Path
	if a.Query != "" {
		s += "?" + a.Query
	}
	return s
}

// URL is HTTPURL as a *url.URL (for transports that take one).
func (a Address) URL(useTLS bool) (*url.URL, error) { return url.Parse(a.HTTPURL(useTLS)) }

// Key identifies the socket and path: "h:443/a" for https://h/a/, "h:443" for the
// GRPC h:443. Two interfaces with one key are declared at one address.
func (a Address) Key() string {
	if a.Local() {
		return a.Scheme + ":" + a.Path
	}
	return a.HostPort() + a.Path
}

// Origin is the origin of the address when it is dialled over TLS or not. For an
// address that says (https, grpcs, http, grpc) useTLS is ignored; a bare gRPC host:port
// takes the mode a2abind dials it with.
func (a Address) Origin(useTLS bool) Origin {
	if a.Host == "" || a.Port == "" {
		return Origin{}
	}
	switch a.TLS {
	case TLSYes:
		useTLS = true
	case TLSNo:
		useTLS = false
	}
	return Origin{Secure: useTLS, Host: a.Host, Port: a.Port}
}

// Origin is where credentials are scoped to: TLS or not, host and port. https:// and
// grpcs:// are one secure origin, http:// and grpc:// one plaintext origin.
type Origin struct {
	// Secure is true for an origin reached over TLS.
	Secure bool
	// Host is the lower-case host, no brackets.
	Host string
	// Port is the port, defaults filled in.
	Port string
}

// String renders the origin as "https://h:443" or "http://h:80"; "" for the zero Origin.
func (o Origin) String() string {
	if o.Host == "" {
		return ""
	}
	if o.Secure {
		return "https://" + net.JoinHostPort(o.Host, o.Port)
	}
	return "http://" + net.JoinHostPort(o.Host, o.Port)
}

// IsZero reports the zero Origin (no origin known).
func (o Origin) IsZero() bool { return o.Host == "" }

// OriginOf is the origin of an http(s) URL such as a card URL; the zero Origin for
// anything else.
func OriginOf(rawURL string) Origin {
	a, err := ParseAddress(rawURL, a2a.TransportProtocolJSONRPC)
	if err != nil {
		return Origin{}
	}
	return a.Origin(a.TLS == TLSYes)
}

// ParseKeyURL reads a URL signing keys are fetched from (a signature's jku, a JWKS
// URL): an absolute https URL (the scheme compared case-insensitively) with a host and
// no user:password@. It is the one https rule of signing, of serving a JWKS and of
// verification. Errors are *AddressError.
func ParseKeyURL(raw string) (Address, error) {
	a, err := ParseAddress(raw, a2a.TransportProtocolJSONRPC)
	switch {
	case err != nil:
		return Address{}, &AddressError{URL: raw, Problem: "is not an absolute https URL"}
	case a.Scheme != "https":
		return Address{}, &AddressError{URL: raw, Problem: "is not https (verifiers fetch keys over HTTPS only)"}
	case a.UserInfo:
		return Address{}, &AddressError{URL: raw, Problem: "carries user:password@ credentials"}
	}
	return a, nil
}
