package delegate

import (
	"fmt"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// Skipped is a declared interface the client will not call, and why.
type Skipped = card.Skipped

// candidates orders the interfaces for calling: first extra (WithInterfaces, in the
// order given), then the card's (card.CallOrder, the order probe's a2abind-delegate
// prediction walks too) apart from those extra already names (an extra interface the
// card declares after all is the card's entry, moved first); it drops those whose URL
// cannot be called.
func candidates(c *card.Card, bindings []a2a.TransportProtocol, extra []card.Interface) (out []card.Interface, skipped []Skipped) {
	ordered, skipped := card.CallOrder(c, bindings)
	declared := map[string]card.Interface{}
	for _, iface := range c.Interfaces {
		declared[iface.Key()] = iface
	}
	first := make([]card.Interface, 0, len(extra))
	named := map[string]bool{}
	for _, iface := range extra {
		if d, ok := declared[iface.Key()]; ok {
			iface = d // the card does declare it after all: its own entry, moved first
		}
		named[iface.Key()] = true
		first = append(first, iface)
	}
	ordered = slices.DeleteFunc(ordered, func(i card.Interface) bool { return named[i.Key()] })
	for _, iface := range append(first, ordered...) {
		if reason := unusableURL(iface); reason != "" {
			skipped = append(skipped, Skipped{Interface: iface, Reason: reason})
			continue
		}
		out = append(out, iface)
	}
	return out, skipped
}

// unusableURL says why an interface's URL cannot be called, or "": addr.ParseAddress
// (the one address model) for its binding.
func unusableURL(iface card.Interface) string {
	if iface.URL == "" {
		return "no url"
	}
	a, err := addr.ParseAddress(iface.URL, iface.Binding)
	switch {
	case err != nil:
		return err.Error()
	case !a.Local() && a.HostPort() == "":
		return fmt.Sprintf("url %q names no port", iface.URL)
	}
	return ""
}
