package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// Report is what a probed card amounts to: the findings (wire and lint) and, per known
// client profile, what that client would do with the card.
type Report struct {
	// Findings are the wire findings followed by the card's own lint findings, errors first.
	Findings []card.Finding `json:"findings"`
	// Clients is the client-impact table, one entry per profile in Profiles order.
	Clients []ClientImpact `json:"clients"`
}

// OK reports whether no finding is an error.
func (r Report) OK() bool { return !card.HasErrors(r.Findings) }

// Diagnose turns a card and its probe results (as Card returns them) and, when given,
// its capabilities' results (as Check returns them) into findings and the
// client-impact table. It does no I/O.
func Diagnose(c *card.Card, results []Result, caps ...CapabilityResult) Report {
	if c == nil {
		return Report{}
	}
	v := newCardView(c, results) // clients.go
	clients := clientImpact(v)
	capabilityImpact(clients, caps) // diagnose_capability.go
	var findings []card.Finding
	for _, pref := range c.Preferred() {
		r, ok := v.results[pref.ID()]
		if !ok || r.Outcome.Reached() {
			continue
		}
		findings = append(findings, preferredNotServed(pref, *r, results, clients))
	}
	for _, r := range results {
		if r.Outcome.Reached() {
			continue
		}
		findings = append(findings, card.Finding{
			Code:      card.CodeInterfaceNotServed,
			Severity:  card.SeverityError,
			Message:   fmt.Sprintf("%s is not served: %s (%s)", r.Interface, r.Outcome, cause(r)),
			Fix:       fixFor(c, r),
			Interface: r.Interface.Source.String(),
		})
	}
	findings = append(findings, capabilityFindings(caps, clients)...) // diagnose_capability.go
	findings = append(findings, authFindings(results)...)
	findings = append(findings, mappingFindings(results, caps)...)
	findings = append(findings, wireFixes(c, results, v.lint)...) // wirefix.go
	slices.SortStableFunc(findings, func(a, b card.Finding) int { return rank(a.Severity) - rank(b.Severity) })
	return Report{Findings: findings, Clients: clients}
}

func rank(s card.Severity) int {
	switch s {
	case card.SeverityError:
		return 0
	case card.SeverityWarning:
		return 1
	}
	return 2
}

func preferredNotServed(pref card.Interface, r Result, results []Result, clients []ClientImpact) card.Finding {
	var hint string
	if pref.Source == card.SourcePrimary {
		hint = fmt.Sprintf("preferredTransport %s is not served at url %s", pref.Binding, pref.URL)
	} else {
		hint = fmt.Sprintf("the preferred interface (%s, %s) is not served", pref.Source, pref)
	}
	var fail, succeed []string
	for _, ci := range clients {
		if ci.Interface != nil && ci.Interface.ID() == pref.ID() && !ci.OK {
			fail = append(fail, ci.Profile)
		} else if ci.OK {
			succeed = append(succeed, ci.Profile)
		}
	}
	msg := fmt.Sprintf("%s: %s (%s). Clients that honour the hint fail", hint, r.Outcome, cause(r))
	if len(fail) > 0 {
		msg += " (" + strings.Join(fail, ", ") + ")"
	}
	if len(succeed) > 0 {
		msg += "; clients that ignore it or fall back succeed (" + strings.Join(succeed, ", ") + ")"
	}
	var fix string
	switch {
	case r.ActualBinding != "" && r.ActualBinding != pref.Binding:
		fix = fmt.Sprintf("prefer %s at %s (what is served there), or serve %s there", r.ActualBinding, pref.URL, pref.Binding)
	case r.ActualBinding == pref.Binding && r.ActualVersion != "" && r.ActualVersion != card.NormalizeVersion(pref.ProtocolVersion):
		// The binding is the one served; only the version differs (issue 24).
		fix = fmt.Sprintf("declare protocolVersion %q for it (the version served there), or serve %s %s there",
			r.ActualVersion, pref.Binding, pref.ProtocolVersion)
	default:
		fix = "make an interface that is served the preferred one"
		for _, o := range results {
			if o.Outcome == wire.Served {
				fix += fmt.Sprintf(" (%s %s at %s is)", o.Interface.Binding, o.Interface.ProtocolVersion, o.Interface.URL)
				break
			}
		}
		fix += ", or " + fixFor(nil, r)
	}
	return card.Finding{Code: card.CodePreferredNotServed, Severity: card.SeverityError, Message: msg, Fix: fix, Interface: pref.Source.String()}
}

// cause is a short reading of a result for a finding's message.
func cause(r Result) string {
	actual := ""
	if r.ActualBinding != "" {
		actual = string(r.ActualBinding)
		if r.ActualVersion != "" {
			actual += " " + r.ActualVersion
		}
	}
	switch r.Outcome {
	case wire.WrongBinding:
		if actual != "" {
			return "the address serves " + actual
		}
		return "another protocol answers there"
	case wire.VersionMismatch:
		if actual != "" {
			return "the address serves " + actual
		}
		return "the declared protocol version is not supported there"
	case wire.HandlerMissing:
		return fmt.Sprintf("%s answers but no A2A handler is registered", r.Interface.Binding)
	case wire.NotFound:
		return "an HTTP server answers but nothing is mounted at that path"
	case wire.Refused:
		return "nothing listens there"
	case wire.TLSMismatch:
		if actual != "" {
			return "TLS mismatch or untrusted certificate; " + actual + " answers otherwise"
		}
		return "TLS mismatch or untrusted certificate"
	case wire.Timeout:
		return "no answer within the budget"
	case wire.Unreachable:
		return "the address cannot be reached"
	case wire.Malformed:
		return "the answer fits no A2A binding"
	case wire.AgentError:
		return "an A2A handler answers but refuses the tenant the card declares for it (or its absence)"
	}
	return string(r.Outcome)
}

// fixFor is the one-line remedy for an interface of c (nil: no card at hand) that is
// not served.
func fixFor(c *card.Card, r Result) string {
	switch r.Outcome {
	case wire.WrongBinding:
		if r.ActualBinding != "" && c != nil && declaredAt(c, r.ActualBinding, r.Interface.URL, r.Interface.Binding) {
			return fmt.Sprintf("remove this %s entry: %s is served at this URL and the card declares it there too, or serve %s there",
				r.Interface.Binding, r.ActualBinding, r.Interface.Binding)
		}
		if r.ActualBinding != "" {
			return fmt.Sprintf("declare %s at this URL (what is served), or serve %s there", r.ActualBinding, r.Interface.Binding)
		}
		return fmt.Sprintf("serve %s at this address, or remove the interface", r.Interface.Binding)
	case wire.VersionMismatch:
		if r.ActualVersion != "" {
			return fmt.Sprintf("declare protocolVersion %q (what is served), or serve %s there", r.ActualVersion, r.Interface.ProtocolVersion)
		}
		return "declare the protocol version really served"
	case wire.HandlerMissing:
		return "register the A2A service/handler on that server before publishing the card"
	case wire.NotFound:
		return "mount the binding at this path, or fix the URL"
	case wire.Refused:
		return "start the listener, or remove the interface from the card"
	case wire.TLSMismatch:
		return "make the URL scheme match the server (https:// for TLS), and use a certificate clients trust"
	case wire.Timeout:
		return "check that the address answers (firewall, overloaded server), or remove the interface"
	case wire.Unreachable:
		return "fix the host name or URL"
	case wire.Malformed:
		return "point the interface at an A2A server"
	case wire.AgentError:
		return "declare the tenant this interface serves (clients send the declared tenant exactly), or serve the declared one"
	}
	return "fix the interface"
}
