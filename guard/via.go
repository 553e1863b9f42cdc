package guard

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ErrMapping is wrapped by every error about a --probe-via mapping that cannot be used.
var ErrMapping = errors.New("guard: bad probe mapping")

// Mapping sends the probes of one public address to a local one: the card names
// addresses clients use (https://agent.example.com, agent.example.com:443) that a
// sidecar may not reach, while it reaches the same sockets on loopback. Only the probes
// go through a mapping; the published card keeps the public addresses.
//
// Both sides are origins (scheme://host[:port], no path: every URL of that origin is
// mapped, path and query kept, scheme and host:port replaced) or both are host:port
// (every interface at that host and port is mapped, whatever its scheme; only the
// host:port is replaced).
type Mapping struct {
	// Public is the address as the card declares it.
	Public string
	// Local is where the probes go instead.
	Local string

	pub, loc address
}

// ParseMapping reads "PUBLIC=LOCAL", e.g. "https://agent.example.com=http://127.0.0.1:8080"
// or "agent.example.com:443=127.0.0.1:9090". Errors wrap ErrMapping.
func ParseMapping(s string) (Mapping, error) {
	public, local, ok := strings.Cut(s, "=")
	if !ok {
		return Mapping{}, fmt.Errorf("%w: %q is not PUBLIC=LOCAL (e.g. https://agent.example.com=http://127.0.0.1:8080)", ErrMapping, s)
	}
	pub, err := parseAddress(strings.TrimSpace(public))
	if err != nil {
		return Mapping{}, fmt.Errorf("%w: public side of %q: %w", ErrMapping, s, err)
	}
	loc, err := parseAddress(strings.TrimSpace(local))
	if err != nil {
		return Mapping{}, fmt.Errorf("%w: local side of %q: %w", ErrMapping, s, err)
	}
	if (pub.scheme == "") != (loc.scheme == "") {
		return Mapping{}, fmt.Errorf("%w: %q: both sides must be origins (scheme://host[:port]) or both host:port", ErrMapping, s)
	}
	return Mapping{Public: pub.String(), Local: loc.String(), pub: pub, loc: loc}, nil
}

// String is the mapping as ParseMapping reads it.
func (m Mapping) String() string { return m.Public + "=" + m.Local }

// address is an origin (scheme set) or a bare host:port (scheme empty); the port is
// always set (defaulted from the scheme).
type address struct{ scheme, host, port string }

func (a address) hostPort() string { return net.JoinHostPort(a.host, a.port) }

func (a address) String() string {
	if a.scheme == "" {
		return a.hostPort()
	}
	return a.scheme + "://" + a.hostPort()
}

// sameHost compares host names case-insensitively (a trailing dot ignored) and IP
// addresses by value.
func sameHost(a, b string) bool {
	a, b = strings.TrimSuffix(a, "."), strings.TrimSuffix(b, ".")
	if ia, ib := net.ParseIP(a), net.ParseIP(b); ia != nil && ib != nil {
		return ia.Equal(ib)
	}
	return strings.EqualFold(a, b)
}

// parseAddress reads a mapping side. It is the guard's only address parser (until
// package card exports one address model, this is the one function to swap for it).
func parseAddress(s string) (address, error) {
	if s == "" {
		return address{}, errors.New("empty address")
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return address{}, err
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return address{}, fmt.Errorf("scheme %q: want http or https", u.Scheme)
		}
		if u.Hostname() == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return address{}, fmt.Errorf("%q is not an origin (scheme://host[:port], no user, path, query or fragment)", s)
		}
		port := u.Port()
		if port == "" {
			port = defaultPort(u.Scheme)
		}
		if err := checkPort(port); err != nil {
			return address{}, err
		}
		return address{scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: port}, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		return address{}, fmt.Errorf("%q is neither an origin (scheme://host[:port]) nor host:port", s)
	}
	if err := checkPort(port); err != nil {
		return address{}, err
	}
	if strings.ContainsAny(host, "/?#@ ") {
		return address{}, fmt.Errorf("%q: bad host %q", s, host)
	}
	return address{host: strings.ToLower(host), port: port}, nil
}

func checkPort(p string) error {
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q: want 1-65535", p)
	}
	return nil
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// mapURL rewrites an interface URL through the first mapping that matches it: origin
// mappings before host:port ones. ok is false when none does (or the URL is not one a
// mapping can name); the URL is then probed as declared.
func mapURL(raw string, ms []Mapping) (string, bool) {
	for _, origins := range []bool{true, false} {
		for _, m := range ms {
			if (m.pub.scheme != "") != origins {
				continue
			}
			if out, ok := m.apply(raw); ok {
				return out, true
			}
		}
	}
	return "", false
}

func (m Mapping) apply(raw string) (string, bool) {
	if !strings.Contains(raw, "://") { // a bare host:port (gRPC)
		host, port, err := net.SplitHostPort(raw)
		if err != nil || m.pub.scheme != "" || !sameHost(host, m.pub.host) || port != m.pub.port {
			return "", false
		}
		return m.loc.hostPort(), true
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	port := u.Port()
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	if !sameHost(u.Hostname(), m.pub.host) || port != m.pub.port || (m.pub.scheme != "" && u.Scheme != m.pub.scheme) {
		return "", false
	}
	if m.loc.scheme != "" {
		u.Scheme = m.loc.scheme
	}
	u.Host = m.loc.hostPort()
	return u.String(), true
}
