package addr

import (
	"net/netip"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// DefaultMaxInterfaces bounds how many of a card's interfaces probe probes, the
// delegate attempts and the exporter exports per card, in card order, unless the
// connection configuration (Conn.MaxInterfaces, --max-interfaces) says otherwise.
const DefaultMaxInterfaces = 32

// IP returns the host as an IP address (zone dropped, IPv4-mapped forms unmapped); ok
// is false when the host is a name.
func (a Address) IP() (ip netip.Addr, ok bool) {
	ip, err := netip.ParseAddr(a.Host)
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.WithZone("").Unmap(), true
}

// Loopback reports a host that names this machine: "localhost", a name under
// ".localhost" (RFC 6761), or a loopback IP (127.0.0.0/8, ::1).
func (a Address) Loopback() bool {
	h := strings.TrimSuffix(a.Host, ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, ok := a.IP()
	return ok && ip.IsLoopback()
}

// Wildcard reports an unspecified IP (0.0.0.0, ::): a listen-on-everything address,
// not one a remote client can dial.
func (a Address) Wildcard() bool {
	ip, ok := a.IP()
	return ok && ip.IsUnspecified()
}

// SameHost reports whether a and b name one host: names compared case-insensitively
// with a trailing dot ignored, IP addresses by value (an IPv4-mapped IPv6 address is
// its IPv4 address), and "localhost" equal to a loopback IP. Ports are not compared.
func (a Address) SameHost(b Address) bool {
	ha, hb := strings.TrimSuffix(strings.ToLower(a.Host), "."), strings.TrimSuffix(strings.ToLower(b.Host), ".")
	if ha == "" || hb == "" {
		return false
	}
	if ha == hb {
		return true
	}
	ia, okA := a.IP()
	ib, okB := b.IP()
	switch {
	case okA && okB:
		return ia == ib
	case okA && hb == "localhost":
		return ia.IsLoopback()
	case okB && ha == "localhost":
		return ib.IsLoopback()
	}
	return false
}

// SameSocket reports SameHost and an equal port.
func (a Address) SameSocket(b Address) bool { return a.Port == b.Port && a.SameHost(b) }

// Rewrite returns the address as declared with its host:port replaced by hostport and,
// when scheme is not "", its scheme replaced by scheme; the path, query and fragment
// stay exactly as written. A bare host:port becomes hostport; dns:/// and
// passthrough:/// keep their prefix. A local address is returned unchanged.
func (a Address) Rewrite(scheme, hostport string) string {
	raw := strings.TrimSpace(a.Raw)
	if a.Local() || a.Host == "" {
		return raw
	}
	if a.Scheme == "" {
		return hostport
	}
	oldScheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	if scheme == "" {
		scheme = oldScheme
	}
	prefix := ""
	if a.Scheme == "dns" || a.Scheme == "passthrough" {
		prefix = "/" // the empty authority before the endpoint
		rest = strings.TrimPrefix(rest, "/")
	}
	tail := ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		tail = rest[i:]
	}
	return scheme + "://" + prefix + hostport + tail
}

// ParseDeclared reads a declared interface URL for its binding, leniently: when the URL
// is not an address of its binding but still names a socket (a bare host:port declared
// for JSON-RPC), a is that socket, read as the GRPC forms are, and err says why the URL
// is unusable for its binding. When the URL names no socket at all, a is the zero
// Address. lint's comparisons and the server's invariant read declared URLs this way.
func ParseDeclared(raw string, binding a2a.TransportProtocol) (a Address, err error) {
	a, err = ParseAddress(raw, binding)
	if err == nil {
		return a, nil
	}
	if alt, altErr := ParseAddress(raw, a2a.TransportProtocolGRPC); altErr == nil {
		return alt, err
	}
	return Address{}, err
}

// Authority is host[:port] as an HTTP Host header writes it: brackets around an IPv6
// host, the port left out when it is the scheme's default (80 for http and grpc, 443
// for https and grpcs).
func (a Address) Authority() string {
	def := map[string]string{"http": "80", "grpc": "80", "https": "443", "grpcs": "443"}[a.Scheme]
	if a.Port == def && def != "" {
		if strings.Contains(a.Host, ":") {
			return "[" + a.Host + "]"
		}
		return a.Host
	}
	return a.HostPort()
}
