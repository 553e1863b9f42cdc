package delegate

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/restv03"
	"github.com/a2abind/a2abind/probe"
)

// How the client calls an interface (probe.Way): what probe calls served, send can use.
// The card does not say everything: v0.3 HTTP+JSON may be served at {url} (a2a-go's
// routes) or under {url}/v1 (the v0.3 specification's, a2a-js 0.3), and a bare gRPC
// host:port may speak TLS or plaintext. Where it matters the client asks the probe
// (probe.Locate, a side-effect-free lookup of a random task id) before the first
// message, and the cache remembers the answer across runs.

// tlsModes says which TLS modes the client may use at a (addr.DialModes, with the
// card's origin as named and WithPlaintextGRPC; a test may say an address is not
// loopback).
func (c *Client) tlsModes(a addr.Address) (useTLS, plain bool) {
	useTLS, plain = addr.DialModes(a, c.named, c.opts.plaintextGRPC)
	if useTLS && plain && c.opts.loopback != nil && !c.opts.loopback(a) {
		return true, false
	}
	return useTLS, plain
}

// usable reports whether the current options allow calling iface the way w says.
func (c *Client) usable(iface card.Interface, w probe.Way) bool {
	a, ok := c.addrs[iface.Key()]
	if !ok {
		return false
	}
	if iface.Binding == a2a.TransportProtocolHTTPJSON && iface.ProtocolVersion == card.V03 {
		if _, ok := restv03.DialectAt(w.Prefix); !ok {
			return false
		}
	} else if w.Prefix != "" {
		return false
	}
	useTLS, plain := c.tlsModes(a)
	return w.TLS && useTLS || !w.TLS && plain
}

// order is the candidates in the cache's order, where a remembered interface goes
// first only if it can be called the way it answered.
func (c *Client) order() []card.Interface {
	return c.cache.orderUsable(c.card, c.key, c.cands, c.usable)
}

// needsLocating reports whether the card and options leave the way to call iface open:
// v0.3 HTTP+JSON (which route set), or a bare gRPC address where either TLS mode may be used.
func (c *Client) needsLocating(iface card.Interface, a addr.Address) bool {
	if iface.Binding == a2a.TransportProtocolHTTPJSON {
		return iface.ProtocolVersion == card.V03
	}
	useTLS, plain := c.tlsModes(a)
	return iface.Binding == a2a.TransportProtocolGRPC && useTLS && plain
}

// way decides how to call iface: as remembered, else as a lookup finds it served, else
// as the card and options say (TLS for a bare gRPC address that may use either; the v0.3
// specification's routes under {url}/v1 for v0.3 HTTP+JSON). Where the lookup found
// nothing the message goes once that default way, and the walk's confirming lookup
// (confirm.go) decides what a failure proves: a second dialect is never tried with the
// same message.
func (c *Client) way(ctx context.Context, iface card.Interface) probe.Way {
	a := c.addrs[iface.Key()]
	if w, ok := c.cache.way(c.card, c.key, iface); ok && c.usable(iface, w) {
		return w
	}
	useTLS, _ := c.tlsModes(a)
	def := probe.Way{TLS: useTLS}
	if iface.Binding == a2a.TransportProtocolHTTPJSON && iface.ProtocolVersion == card.V03 {
		def.Prefix = restv03.Spec.Prefix
	}
	if c.needsLocating(iface, a) {
		if w, _, ok := probe.Locate(ctx, iface, c.lookupOptions(ctx, iface)...); ok && c.usable(iface, w) {
			c.cache.learn(c.card, c.key, iface, w, true)
			return w
		}
	}
	c.cache.learn(c.card, c.key, iface, def, false)
	return def
}
