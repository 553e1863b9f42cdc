package card

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Skipped is a declared interface a caller will not call, and why.
type Skipped struct {
	// Interface is the declared interface.
	Interface Interface
	// Reason says why it is not a candidate.
	Reason string
}

// Callable reports whether a2a-go v2.3.1 has a transport for the binding and version
// (JSON-RPC, gRPC or HTTP+JSON, protocol version 1.0 or 0.3).
func Callable(b a2a.TransportProtocol, version string) bool {
	if version != V1 && version != V03 {
		return false
	}
	_, ok := addr.CanonicalBinding(b)
	return ok
}

// CallOrder is the order in which a2abind calls a card's interfaces: v1.0
// supportedInterfaces in card order; then, for v0.3, the declared interfaces with the
// preferredTransport binding first (the primary url+preferredTransport pair is skipped
// when additionalInterfaces declare another binding at url), the rest in card order.
// bindings, when set, restricts and reorders (stably) by binding. Interfaces with a
// binding or version a2abind cannot call are skipped. Bindings come back in their
// canonical spelling. The delegate calls in this order, and probe's a2abind-delegate
// prediction walks the same list.
func CallOrder(c *Card, bindings []a2a.TransportProtocol) (out []Interface, skipped []Skipped) {
	var v1, v03 []Interface
	var primary *Interface
	for _, iface := range c.Interfaces {
		if b, ok := addr.CanonicalBinding(iface.Binding); ok {
			iface.Binding = b
		}
		if !Callable(iface.Binding, iface.ProtocolVersion) {
			v := iface.ProtocolVersion
			if v == "" {
				v = "no protocolVersion"
			}
			skipped = append(skipped, Skipped{iface, fmt.Sprintf("binding %q version %s is not supported", iface.Binding, v)})
			continue
		}
		switch {
		case iface.Source.List == ListSupported:
			v1 = append(v1, iface)
		case iface.Source == SourcePrimary:
			p := iface
			primary = &p
		default:
			v03 = append(v03, iface)
		}
	}
	out = append(out, v1...)
	if primary != nil {
		conflict := slices.ContainsFunc(v03, func(i Interface) bool {
			return sameURL(i.URL, primary.URL) && i.Binding != primary.Binding
		})
		if conflict {
			skipped = append(skipped, Skipped{*primary, "url+preferredTransport is contradicted: additionalInterfaces declare another binding at url"})
		} else {
			v03 = append([]Interface{*primary}, v03...)
		}
		pref := primary.Binding
		slices.SortStableFunc(v03, func(a, b Interface) int {
			return boolRank(a.Binding != pref) - boolRank(b.Binding != pref)
		})
	}
	out = append(out, v03...)
	if len(bindings) > 0 {
		rank := func(b a2a.TransportProtocol) int {
			for i, want := range bindings {
				if cb, _ := addr.CanonicalBinding(want); cb == b {
					return i
				}
			}
			return -1
		}
		kept := out[:0:0]
		for _, iface := range out {
			if rank(iface.Binding) < 0 {
				skipped = append(skipped, Skipped{iface, "binding excluded by the caller"})
				continue
			}
			kept = append(kept, iface)
		}
		slices.SortStableFunc(kept, func(a, b Interface) int { return rank(a.Binding) - rank(b.Binding) })
		out = kept
	}
	return out, skipped
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sameURL(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}
