package probe

import (
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// Fixes from the wire. lint's fixes come from the document alone; probe knows what each
// declared address really serves. A lint finding about an interface whose fix names an
// address where the probe found that interface's binding not served (another binding
// there, no A2A handler, nothing at all) would send the reader to a socket that does
// not work: Diagnose replaces such a fix with one computed from the results.

// wireFixes returns the lint findings with every fix the wire contradicts replaced.
func wireFixes(c *card.Card, results []Result, findings []card.Finding) []card.Finding {
	bySource := map[string]card.Interface{}
	for _, i := range c.Interfaces {
		if i.Source != (card.Source{}) {
			bySource[i.Source.String()] = i // Finding.Interface is the Source's text
		}
	}
	out := make([]card.Finding, 0, len(findings))
	for _, f := range findings {
		iface, ok := bySource[f.Interface]
		switch {
		case f.Fix == "":
		case ok:
			if bad, ok := contradicted(f.Fix, iface.Binding, results); ok {
				f.Fix = servedFix(iface.Binding, results, bad)
			}
		case f.Interface == "":
			if fix, ok := sharedFix(f.Message, results); ok {
				f.Fix = fix
			}
		}
		out = append(out, f)
	}
	return out
}

// sharedFix is the fix of a finding about one URL declared with several bindings (the
// message names it first): what the probe found served there, and what not.
func sharedFix(msg string, results []Result) (string, bool) {
	var served, not []string
	url := ""
	for _, r := range results {
		if !strings.HasPrefix(msg, r.Interface.URL+" ") || url != "" && r.Interface.URL != url {
			continue
		}
		url = r.Interface.URL
		label := fmt.Sprintf("%s %s", r.Interface.Binding, r.Interface.ProtocolVersion)
		if r.Outcome.Reached() {
			served = append(served, label)
		} else {
			not = append(not, fmt.Sprintf("%s (%s)", label, r.Outcome))
		}
	}
	if len(served) == 0 || len(not) == 0 {
		return "", false
	}
	return fmt.Sprintf("probe found %s served at %s, and not %s: declare there only what is served",
		strings.Join(served, " and "), url, strings.Join(not, " or ")), true
}

// contradicted returns the result of an interface of binding b that is not served at
// an address fix names, if any.
func contradicted(fix string, b a2a.TransportProtocol, results []Result) (Result, bool) {
	for _, r := range results {
		if r.Interface.Binding != b || r.Outcome.Reached() {
			continue
		}
		a, err := addr.ParseAddress(r.Interface.URL, r.Interface.Binding)
		if err != nil {
			continue
		}
		if names(fix, r.Interface.URL) || a.HostPort() != "" && names(fix, a.HostPort()) {
			return r, true
		}
	}
	return Result{}, false
}

// names reports whether text names addr: addr occurs, not followed by more of a port
// or path ("h:80" does not name "h:8080").
func names(text, addr string) bool {
	for rest := text; ; {
		i := strings.Index(rest, addr)
		if i < 0 {
			return false
		}
		after := rest[i+len(addr):]
		if after == "" || !strings.ContainsAny(after[:1], "0123456789/") {
			return true
		}
		rest = after
	}
}

// servedFix is the fix for an interface of binding b from what the wire showed: where b
// is served, or that it is served nowhere the card declares, with bad's evidence.
func servedFix(b a2a.TransportProtocol, results []Result, bad Result) string {
	// The evidence names no address: the fix points only where things are served.
	evidence := fmt.Sprintf("lint's fix pointed where probe found %s %s", b, bad.Outcome)
	if bad.ActualBinding != "" && bad.ActualBinding != b {
		evidence += fmt.Sprintf(", %s %s served instead", bad.ActualBinding, bad.ActualVersion)
	}
	for _, r := range results {
		if r.Interface.Binding == b && r.Outcome == wire.Served {
			return fmt.Sprintf("declare %s %s at %s, where it is served (%s)", b, r.Interface.ProtocolVersion, r.Interface.URL, evidence)
		}
	}
	fix := fmt.Sprintf("%s is served at none of the card's addresses: serve it before declaring it, or remove its entries", b)
	for _, r := range results {
		if r.Outcome == wire.Served {
			fix += fmt.Sprintf("; %s %s is served at %s", r.Interface.Binding, r.Interface.ProtocolVersion, r.Interface.URL)
			break
		}
	}
	return fix + " (" + evidence + ")"
}

// declaredAt reports whether the card declares binding b at the address of url.
func declaredAt(c *card.Card, b a2a.TransportProtocol, url string, urlBinding a2a.TransportProtocol) bool {
	at, err := addr.ParseAddress(url, urlBinding)
	if err != nil {
		return false
	}
	for _, i := range c.Interfaces {
		if i.Binding != b {
			continue
		}
		if a, err := addr.ParseAddress(i.URL, i.Binding); err == nil && a.Key() == at.Key() {
			return true
		}
	}
	return false
}
