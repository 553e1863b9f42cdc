package addr

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
	anyTLS bool     // the origin came from a bare host:port: TLS or not, it is the same
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

// Allows reports whether credentials may go to a over a connection that uses TLS or
// not: the connection decides the origin, so an https address retried in plaintext is
// the http origin (no credentials for an https one).
func (p CredentialPolicy) Allows(a Address, useTLS bool) bool {
	if a.Host == "" || a.Port == "" || a.Local() || a.UserInfo {
		return false
	}
	o := Origin{Secure: useTLS, Host: a.Host, Port: a.Port}
	if !p.origin.IsZero() && (o == p.origin || p.anyTLS && o.Host == p.origin.Host && o.Port == p.origin.Port) {
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

// AddressCredentials scopes credentials to the origin of an address the user named
// directly: as its scheme says, or, for a bare gRPC host:port that says nothing about
// TLS, that host and port with or without TLS.
func AddressCredentials(a Address, allowHosts ...string) CredentialPolicy {
	p := NewCredentialPolicy(a.Origin(a.TLS == TLSYes), allowHosts...)
	p.anyTLS = a.TLS == TLSUnknown
	return p
}

// StripHeaders deletes the user's header keys from h (on a request about to leave the
// credential scope).
func StripHeaders(h, user http.Header) {
	for k := range user {
		h.Del(k)
	}
}
