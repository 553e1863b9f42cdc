package card

import (
	"net"
	"net/http"
	"strings"
)

// CredentialPolicy decides whether the headers a user gave (-H, WithHeader) may go to
// an address: only to the card's origin, the one the user named before any redirect
// (TLS, host and port all equal), and to the hosts the user allowed. probe, delegate
// and the card fetch all ask it; nothing else decides.
type CredentialPolicy struct {
	origin Origin
	hosts  []string // lower case, "host" or "host:port"
}

// NewCredentialPolicy scopes credentials to origin and to the allowed hosts: "host"
// (any port, with or without TLS) or "host:port".
func NewCredentialPolicy(origin Origin, allowHosts ...string) CredentialPolicy {
	p := CredentialPolicy{origin: origin}
	for _, h := range allowHosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			p.hosts = append(p.hosts, h)
		}
	}
	return p
}

// Origin is the origin credentials belong to.
func (p CredentialPolicy) Origin() Origin { return p.origin }

// Allows reports whether credentials may go to a, dialled over TLS or not (useTLS
// matters only for an address that does not say, such as a bare gRPC host:port).
func (p CredentialPolicy) Allows(a Address, useTLS bool) bool {
	if a.Host == "" || a.Local() || a.UserInfo {
		return false
	}
	o := a.Origin(useTLS)
	if !p.origin.IsZero() && o == p.origin {
		return true
	}
	hp := net.JoinHostPort(a.Host, a.Port)
	for _, h := range p.hosts {
		if strings.Trim(h, "[]") == a.Host || h == hp {
			return true
		}
	}
	return false
}

// AllowsURL is Allows for an http(s) URL (a card fetch, a redirect's Location).
func (p CredentialPolicy) AllowsURL(rawURL string) bool {
	o := OriginOf(rawURL)
	if o.IsZero() {
		return false
	}
	return p.Allows(Address{Host: o.Host, Port: o.Port, TLS: tlsOf(o.Secure)}, o.Secure)
}

func tlsOf(secure bool) TLS {
	if secure {
		return TLSYes
	}
	return TLSNo
}

// CardOrigin is the origin credentials for c's interfaces belong to: the origin the
// user named when the card was fetched (before any redirect), else, for a card file,
// the origin of its preferred (or first) interface, a bare gRPC host:port taken as
// dialled over TLS or not as bareTLS says.
func CardOrigin(c *Card, bareTLS bool) Origin {
	if c == nil {
		return Origin{}
	}
	if !c.Origin.IsZero() {
		return c.Origin
	}
	if c.Location != "" && (strings.HasPrefix(c.Location, "http://") || strings.HasPrefix(c.Location, "https://")) {
		return OriginOf(c.Location)
	}
	pick := -1
	for n, i := range c.Interfaces {
		if i.Preferred {
			pick = n
			break
		}
	}
	if pick < 0 && len(c.Interfaces) > 0 {
		pick = 0
	}
	if pick < 0 {
		return Origin{}
	}
	a, err := ParseAddress(c.Interfaces[pick].URL, c.Interfaces[pick].Binding)
	if err != nil {
		return Origin{}
	}
	return a.Origin(bareTLS)
}

// StripHeaders deletes the user's header keys from h (on a request about to leave the
// credential scope).
func StripHeaders(h, user http.Header) {
	for k := range user {
		h.Del(k)
	}
}
