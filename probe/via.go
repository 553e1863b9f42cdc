package probe

import "github.com/a2abind/a2abind/card"

// WithProbeVia probes each declared interface at the address via returns for it (when
// ok) instead of its declared URL: a sidecar (guard --probe-via) or a server checking
// its own listeners reaches the sockets a card declares at local addresses. Each Result
// still names the interface as the card declares it, and its Detail starts with
// "probed via ADDRESS". Without it every interface is probed where it is declared.
func WithProbeVia(via func(card.Interface) (string, bool)) Option {
	return func(o *options) { o.via = via }
}

// localInterfaces are ifaces with each URL replaced where via maps it: without via,
// ifaces itself, which the caller only reads.
func localInterfaces(ifaces []card.Interface, via func(card.Interface) (string, bool)) []card.Interface {
	if via == nil {
		return ifaces
	}
	out := append([]card.Interface(nil), ifaces...)
	for i := range out {
		if u, ok := via(out[i]); ok {
			out[i].URL = u
		}
	}
	return out
}

// declared is r, the result of probing a local address, told of the interface as the
// card declares it.
func declared(r Result, iface card.Interface) Result {
	if r.Interface.URL != iface.URL {
		r.Detail = "probed via " + r.Interface.URL + ": " + r.Detail
	}
	r.Interface = iface
	return r
}
