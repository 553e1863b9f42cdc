package lint

import (
	"fmt"
	"net/url"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// --- duplicates ---

func (l *linter) duplicates() []hit {
	var out []hit
	for _, list := range []card.SourceList{card.ListSupported, card.ListAdditional} {
		seen := map[string]string{}
		for _, i := range l.declared {
			if i.Source.List != list {
				continue
			}
			k, ok := l.addressKey(i)
			if !ok {
				k = i.URL
			}
			key := k + "\x00" + string(canonical(i.Binding)) + "\x00" + i.ProtocolVersion
			if first, dup := seen[key]; dup {
				out = append(out, hit{iface: i.Source.String(),
					message: fmt.Sprintf("%s repeats %s (%s); clients that keep one entry per binding disagree on which copy they use",
						i.Source, first, i.String())})
				continue
			}
			seen[key] = i.Source.String()
		}
	}
	return out
}

// --- helpers ---

// addressKey identifies the socket and path an interface URL names (Address.Key), so
// that "https://h:443/a" and "https://h/a/" compare equal and "agent:8443" (GRPC)
// matches "https://agent:8443". ok is false when the URL names no host.
//
// A GRPC entry written as an http(s) URL is keyed as the HTTP bindings are, path
// included, so that one URL declared for GRPC and JSON-RPC compares equal even with a
// path (a2a-js serves JSON-RPC at /a2a/jsonrpc); a bare host:port stays a socket.
//
// Each URL and binding is keyed once per lint run: the rules compare the same
// interfaces' keys again and again.
func (l *linter) addressKey(i card.Interface) (string, bool) {
	in := addressIn{i.URL, i.Binding}
	k, done := l.keys[in]
	if !done {
		k = l.keyOf(i)
		if l.keys == nil {
			l.keys = map[addressIn]keyed{}
		}
		l.keys[in] = k
	}
	return k.key, k.ok
}

// keyOf is addressKey unmemoised.
func (l *linter) keyOf(i card.Interface) keyed {
	if isGRPC(i.Binding) {
		if a, err := l.parseAddress(i.URL, a2a.TransportProtocolJSONRPC); err == nil && a.Host != "" {
			return keyed{a.Key(), true}
		}
	}
	a, _ := l.parseDeclared(i.URL, i.Binding) // a bare host:port declared for JSON-RPC still names a socket
	if a.Host == "" && !a.Local() {
		return keyed{}
	}
	return keyed{a.Key(), true}
}

// keyed is addressKey's answer for one URL and binding.
type keyed struct {
	key string
	ok  bool
}

// parseAddress is ParseAddress, each URL and binding parsed once per lint run: the
// rules ask the same interfaces' addresses again and again.
func (l *linter) parseAddress(raw string, binding a2a.TransportProtocol) (addr.Address, error) {
	k := addressIn{raw, binding}
	if p, ok := l.addrs[k]; ok {
		return p.a, p.err
	}
	a, err := addr.ParseAddress(raw, binding)
	if l.addrs == nil {
		l.addrs = map[addressIn]parsedAddress{}
	}
	l.addrs[k] = parsedAddress{a, err}
	return a, err
}

// parseDeclared is ParseDeclared on parseAddress.
func (l *linter) parseDeclared(raw string, binding a2a.TransportProtocol) (addr.Address, error) {
	a, err := l.parseAddress(raw, binding)
	if err == nil {
		return a, nil
	}
	if alt, altErr := l.parseAddress(raw, a2a.TransportProtocolGRPC); altErr == nil {
		return alt, err
	}
	return addr.Address{}, err
}

type addressIn struct {
	raw     string
	binding a2a.TransportProtocol
}

type parsedAddress struct {
	a   addr.Address
	err error
}

// isCustomURI reports whether b looks like a URI (custom bindings SHOULD be URIs).
func isCustomURI(b a2a.TransportProtocol) bool {
	// Not addr.ParseAddress: a binding name is checked for URI syntax, not dialled.
	u, err := url.Parse(string(b))
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
}

func bindingName(b a2a.TransportProtocol) string {
	if b == "" {
		return "an interface"
	}
	return string(b)
}

func bindingField(i card.Interface) string {
	switch {
	case i.Source == card.SourcePrimary:
		return "preferredTransport"
	case i.Source.List == card.ListAdditional:
		return i.Source.String() + ".transport"
	default:
		return i.Source.String() + ".protocolBinding"
	}
}

func displayURL(u string) string {
	if u == "" {
		return "(no url)"
	}
	return u
}

// suggestVersion guesses the Major.Minor a malformed version meant ("v1.0" -> "1.0").
func suggestVersion(raw string) string {
	if v := card.NormalizeVersion(raw); versionPattern().MatchString(v) {
		return v
	}
	return card.V1
}

// val is the text of a member as written, "" when absent.
func val(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
