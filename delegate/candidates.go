package delegate

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
)

// Skipped is a declared interface the client will not call, and why.
type Skipped = card.Skipped

// candidates orders the card's interfaces for calling (card.CallOrder, the order probe's
// a2abind-delegate prediction walks too) and drops those whose URL cannot be called.
func candidates(c *card.Card, bindings []a2a.TransportProtocol) (out []card.Interface, skipped []Skipped) {
	ordered, skipped := card.CallOrder(c, bindings)
	for _, iface := range ordered {
		if reason := unusableURL(iface); reason != "" {
			skipped = append(skipped, Skipped{Interface: iface, Reason: reason})
			continue
		}
		out = append(out, iface)
	}
	return out, skipped
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
