package guard

import (
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
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

	pub, loc addr.Address
}

// ParseMapping reads "PUBLIC=LOCAL", e.g. "https://agent.example.com=http://127.0.0.1:8080"
// or "agent.example.com:443=127.0.0.1:9090". Both sides are read by addr.ParseAddress,
// the one address model. Errors wrap ErrMapping.
func ParseMapping(s string) (Mapping, error) {
	public, local, ok := strings.Cut(s, "=")
	if !ok {
		return Mapping{}, fmt.Errorf("%w: %q is not PUBLIC=LOCAL (e.g. https://agent.example.com=http://127.0.0.1:8080)", ErrMapping, s)
	}
	pub, err := parseSide(strings.TrimSpace(public))
	if err != nil {
		return Mapping{}, fmt.Errorf("%w: public side of %q: %w", ErrMapping, s, err)
	}
	loc, err := parseSide(strings.TrimSpace(local))
	if err != nil {
		return Mapping{}, fmt.Errorf("%w: local side of %q: %w", ErrMapping, s, err)
	}
	if (pub.Scheme == "") != (loc.Scheme == "") {
		return Mapping{}, fmt.Errorf("%w: %q: both sides must be origins (scheme://host[:port]) or both host:port", ErrMapping, s)
	}
	return Mapping{Public: sideString(pub), Local: sideString(loc), pub: pub, loc: loc}, nil
}

// String is the mapping as ParseMapping reads it.
func (m Mapping) String() string { return m.Public + "=" + m.Local }

// sideString renders a mapping side: scheme://host:port for an origin, else host:port.
func sideString(a addr.Address) string {
	if a.Scheme == "" {
		return a.HostPort()
	}
	return a.Scheme + "://" + a.HostPort()
}

// parseSide reads a mapping side: an http(s) origin (no user, path, query or fragment)
// or a bare host:port.
func parseSide(s string) (addr.Address, error) {
	if s == "" {
		return addr.Address{}, errors.New("empty address")
	}
	if !strings.Contains(s, "://") {
		a, err := addr.ParseAddress(s, a2a.TransportProtocolGRPC)
		if err != nil || a.Scheme != "" {
			return addr.Address{}, fmt.Errorf("%q is neither an origin (scheme://host[:port]) nor host:port", s)
		}
		return a, nil
	}
	a, err := addr.ParseAddress(s, a2a.TransportProtocolJSONRPC)
	if err != nil {
		return addr.Address{}, err
	}
	if a.Local() || a.UserInfo || a.Path != "" || a.Query != "" || strings.Contains(s, "#") {
		return addr.Address{}, fmt.Errorf("%q is not an origin (scheme://host[:port], no user, path, query or fragment)", s)
	}
	return a, nil
}

// mapURL rewrites an interface URL through the first mapping that matches it: origin
// mappings before host:port ones. ok is false when none does (or the URL is not one a
// mapping can name); the URL is then probed as declared.
func mapURL(raw string, ms []Mapping) (string, bool) {
	a, err := addr.ParseAddress(raw, a2a.TransportProtocolGRPC)
	if err != nil || a.Scheme != "" {
		a, err = addr.ParseAddress(raw, a2a.TransportProtocolJSONRPC)
	}
	if err != nil || a.Local() || (a.Scheme != "" && a.Scheme != "http" && a.Scheme != "https") {
		return "", false
	}
	for _, origins := range []bool{true, false} {
		for _, m := range ms {
			if (m.pub.Scheme != "") != origins {
				continue
			}
			if out, ok := m.apply(a); ok {
				return out, true
			}
		}
	}
	return "", false
}

// apply rewrites a through m: a bare host:port only through a host:port mapping, a URL
// through an origin mapping of its scheme or a host:port mapping.
func (m Mapping) apply(a addr.Address) (string, bool) {
	if !a.SameSocket(m.pub) || (a.Scheme == "" && m.pub.Scheme != "") || (m.pub.Scheme != "" && a.Scheme != m.pub.Scheme) {
		return "", false
	}
	return a.Rewrite(m.loc.Scheme, m.loc.HostPort()), true
}
