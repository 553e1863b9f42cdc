package card

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// --- duplicates ---

func (l *linter) duplicates() []hit {
	var out []hit
	for _, list := range []string{"supportedInterfaces[", "additionalInterfaces["} {
		seen := map[string]string{}
		for _, i := range l.declared {
			if !strings.HasPrefix(i.Source, list) {
				continue
			}
			k, ok := addressKey(i)
			if !ok {
				k = i.URL
			}
			key := k + "\x00" + string(canonical(i.Binding)) + "\x00" + i.ProtocolVersion
			if first, dup := seen[key]; dup {
				out = append(out, hit{iface: i.Source,
					message: fmt.Sprintf("%s repeats %s (%s); clients that keep one entry per binding disagree on which copy they use",
						i.Source, first, i.String())})
				continue
			}
			seen[key] = i.Source
		}
	}
	return out
}

// --- helpers ---

// addressKey identifies the socket and path an interface URL names (Address.Key), so
// that "https://h:443/a" and "https://h/a/" compare equal and "agent:8443" (GRPC)
// matches "https://agent:8443". ok is false when the URL names no host.
func addressKey(i Interface) (string, bool) {
	a, ok := lenientAddress(i)
	if !ok {
		return "", false
	}
	return a.Key(), true
}

// lenientAddress parses an interface URL for its binding; for lint's comparisons a URL
// that is not an address of its binding (a bare host:port declared for JSON-RPC, which
// url-not-absolute reports) still names a socket, read as the GRPC forms are.
func lenientAddress(i Interface) (Address, bool) {
	a, err := ParseAddress(i.URL, i.Binding)
	if err != nil {
		a, err = ParseAddress(i.URL, a2a.TransportProtocolGRPC)
	}
	return a, err == nil && (a.Host != "" || a.Local())
}

// isCustomURI reports whether b looks like a URI (custom bindings SHOULD be URIs).
func isCustomURI(b a2a.TransportProtocol) bool {
	u, err := url.Parse(string(b))
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isWildcard(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

func bindingName(b a2a.TransportProtocol) string {
	if b == "" {
		return "an interface"
	}
	return string(b)
}

func bindingField(i Interface) string {
	switch {
	case i.Source == SourcePrimary:
		return "preferredTransport"
	case strings.HasPrefix(i.Source, "additionalInterfaces["):
		return i.Source + ".transport"
	default:
		return i.Source + ".protocolBinding"
	}
}

func displayURL(u string) string {
	if u == "" {
		return "(no url)"
	}
	return u
}

func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// suggestVersion guesses the Major.Minor a malformed version meant ("v1.0" -> "1.0").
func suggestVersion(raw string) string {
	if v := NormalizeVersion(raw); versionPattern.MatchString(v) {
		return v
	}
	return V1
}
