package probe

import (
	"context"
	"strings"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// Way is how a served interface answered: where its routes are under the declared URL
// and whether it spoke TLS. It is what a client needs, beyond the card, to reach what
// the probe reached: the v0.3 HTTP+JSON routes under {url}/v1 (a2a-js 0.3) rather than
// at {url} (a2a-go), and the TLS mode of a bare gRPC host:port, which the card does not
// say.
type Way struct {
	// Prefix is the path under the declared URL at which the binding's routes answered:
	// "" (at the URL itself) or, for v0.3 HTTP+JSON, "/v1".
	Prefix string
	// TLS reports whether the answer came over TLS.
	TLS bool
}

// ValidPrefix reports whether p can be a Way's Prefix: empty, or a short absolute path
// of plain segments (a Way read back from a file must not redirect a call elsewhere).
func ValidPrefix(p string) bool {
	if p == "" {
		return true
	}
	if len(p) > 32 || !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
				return false
			}
		}
	}
	return true
}

// Locate looks up a random task id at iface with its declared binding and version
// only, as the first request of Interface does (both v0.3 HTTP+JSON route sets, both
// TLS modes of a bare gRPC host:port, plaintext first), and returns the Way it was
// served, or ok false with the outcome when it was not. Nothing else is looked up. Like
// Interface, it runs on a fresh Engine closed before it returns; WithTimeout bounds it.
func Locate(ctx context.Context, iface card.Interface, opts ...Option) (w Way, o wire.Outcome, ok bool) {
	e := NewEngine()
	defer e.Close()
	op := newOptions(opts)
	op.engine = e
	ctx, cancel := context.WithTimeout(ctx, op.timeout)
	defer cancel()
	r := newRun(iface, op)
	ep, err := parseEndpoint(iface.URL, r.binding)
	if err != nil {
		return Way{}, wire.Unreachable, false
	}
	if r.custom {
		return Way{}, wire.WrongBinding, false
	}
	if r.admit(ctx, ep) != nil {
		return Way{}, wire.Blocked, false
	}
	declared, _, _ := versions(iface.ProtocolVersion)
	a := r.attempt(ctx, ep, r.binding, declared, tlsAuto)
	if a.outcome != wire.Served {
		return Way{}, a.outcome, false
	}
	return a.way(), wire.Served, true
}

// way is the Way of an attempt that answered.
func (a attempt) way() Way { return Way{Prefix: a.prefix, TLS: a.tls} }
