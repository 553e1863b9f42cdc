package delegate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
)

// Skipped is a declared interface the client will not call, and why.
type Skipped struct {
	// Interface is the declared interface.
	Interface card.Interface
	// Reason says why it is not a candidate.
	Reason string
}

// supported reports whether a2a-go v2.3.1 has a transport for the binding and version.
func supported(b a2a.TransportProtocol, version string) bool {
	if version != card.V1 && version != card.V03 {
		return false
	}
	_, ok := card.CanonicalBinding(b)
	return ok
}

// candidates orders the card's interfaces for calling: v1.0 supportedInterfaces in
// order; for v0.3, preferredTransport selects among the declared interfaces (the primary
// url+preferredTransport pair is not assumed when additionalInterfaces declare another
// binding at url), then the rest in card order. bindings, when set, restricts and
// reorders (stably) by binding.
func candidates(c *card.Card, bindings []a2a.TransportProtocol) (out []card.Interface, skipped []Skipped) {
	var v1, v03 []card.Interface
	var primary *card.Interface
	for _, iface := range c.Interfaces {
		if b, ok := card.CanonicalBinding(iface.Binding); ok {
			iface.Binding = b
		}
		switch {
		case !supported(iface.Binding, iface.ProtocolVersion):
			v := iface.ProtocolVersion
			if v == "" {
				v = "no protocolVersion"
			}
			skipped = append(skipped, Skipped{iface, fmt.Sprintf("binding %q version %s is not supported", iface.Binding, v)})
			continue
		}
		if reason := unusableURL(iface); reason != "" {
			skipped = append(skipped, Skipped{iface, reason})
			continue
		}
		switch {
		case strings.HasPrefix(iface.Source, "supportedInterfaces"):
			v1 = append(v1, iface)
		case iface.Source == card.SourcePrimary:
			p := iface
			primary = &p
		default:
			v03 = append(v03, iface)
		}
	}
	out = append(out, v1...)
	if primary != nil {
		conflict := slices.ContainsFunc(v03, func(i card.Interface) bool {
			return sameURL(i.URL, primary.URL) && i.Binding != primary.Binding
		})
		if conflict {
			skipped = append(skipped, Skipped{*primary, "url+preferredTransport is contradicted: additionalInterfaces declare another binding at url"})
		} else {
			v03 = append([]card.Interface{*primary}, v03...)
		}
		pref := primary.Binding
		slices.SortStableFunc(v03, func(a, b card.Interface) int {
			return boolRank(a.Binding != pref) - boolRank(b.Binding != pref)
		})
	}
	out = append(out, v03...)
	if len(bindings) > 0 {
		rank := func(b a2a.TransportProtocol) int {
			for i, want := range bindings {
				if cb, _ := card.CanonicalBinding(want); cb == b {
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
		slices.SortStableFunc(kept, func(a, b card.Interface) int { return rank(a.Binding) - rank(b.Binding) })
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

// unusableURL says why an interface's URL cannot be called, or "": card.ParseAddress
// (the one address model) for its binding.
func unusableURL(iface card.Interface) string {
	if iface.URL == "" {
		return "no url"
	}
	a, err := card.ParseAddress(iface.URL, iface.Binding)
	switch {
	case err != nil:
		return err.Error()
	case !a.Local() && a.HostPort() == "":
		return fmt.Sprintf("url %q names no port", iface.URL)
	}
	return ""
}
