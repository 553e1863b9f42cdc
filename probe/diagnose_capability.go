package probe

import (
	"fmt"
	"strings"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// The capability findings of Diagnose: capability-not-served, capability-not-declared,
// auth-not-equivalent and error-mapping.

// capabilityMethods names each capability's methods for messages and fixes.
var capabilityMethods = map[Capability]string{
	Streaming:         "SubscribeToTask (0.3: tasks/resubscribe)",
	PushNotifications: "the push-config methods (ListTaskPushNotificationConfigs; 0.3: tasks/pushNotificationConfig/list)",
	ExtendedAgentCard: "GetExtendedAgentCard (0.3: agent/getAuthenticatedExtendedCard)",
}

// capabilityImpact records, in each client's impact, the declared capabilities that
// are not served on the binding the client picks: the client uses them, because the
// card says so, and fails.
func capabilityImpact(clients []ClientImpact, caps []CapabilityResult) {
	for n := range clients {
		ci := &clients[n]
		if ci.Interface == nil {
			continue
		}
		b, _ := addr.CanonicalBinding(ci.Interface.Binding)
		for _, cr := range caps {
			if !cr.Declared() {
				continue
			}
			for _, call := range cr.Calls {
				if cb, _ := addr.CanonicalBinding(call.Interface.Binding); cb == b && call.Outcome == CapabilityNotServed {
					ci.CapabilitiesFailing = append(ci.CapabilitiesFailing, cr.Name)
					break
				}
			}
		}
	}
}

func capabilityFindings(caps []CapabilityResult, clients []ClientImpact) []card.Finding {
	var out []card.Finding
	for _, cr := range caps {
		switch {
		case cr.Declared() && cr.Verdict == CapabilityNotServed:
			var not, ok []string
			source := ""
			for _, call := range cr.Calls {
				switch call.Outcome {
				case CapabilityNotServed:
					not = append(not, fmt.Sprintf("%s (%s)", call.Interface, call.Reason))
					if source == "" {
						source = call.Interface.Source.String()
					}
				case CapabilityServed:
					ok = append(ok, call.Interface.String())
				}
			}
			msg := fmt.Sprintf("%s declares %s, but %s is not served on %s", cr.Claim.Source, cr.Name, capabilityMethods[cr.Name], strings.Join(not, ", "))
			if len(ok) > 0 {
				msg += "; it is served on " + strings.Join(ok, ", ")
			}
			var fail []string
			for _, ci := range clients {
				for _, k := range ci.CapabilitiesFailing {
					if k == cr.Name {
						fail = append(fail, ci.Profile)
					}
				}
			}
			if len(fail) > 0 {
				msg += ". Clients that use it fail (" + strings.Join(fail, ", ") + ")"
			}
			out = append(out, card.Finding{Code: card.CodeCapabilityNotServed, Severity: card.SeverityError, Message: msg,
				Fix:       fmt.Sprintf("serve %s on every declared binding, or set %s to false", capabilityMethods[cr.Name], claimPath(cr)),
				Interface: source})
		case !cr.Declared() && cr.Verdict == CapabilityServed:
			var at []string
			for _, call := range cr.Calls {
				at = append(at, call.Interface.String())
			}
			out = append(out, card.Finding{Code: card.CodeCapabilityNotDeclared, Severity: card.SeverityInfo,
				Message: fmt.Sprintf("%s is served (%s answers on %s), but the card does not declare it: clients that trust the card never use it",
					cr.Name, capabilityMethods[cr.Name], strings.Join(at, ", ")),
				Fix: fmt.Sprintf("declare %s: true, if the agent means to offer it", claimPath(cr))})
		}
	}
	return out
}

// claimPath is where the card states the capability, or where it would.
func claimPath(cr CapabilityResult) string {
	if cr.Claim.Source != "" {
		return cr.Claim.Source
	}
	return "capabilities." + string(cr.Name)
}

// authFindings compares the lookups' authentication: an interface answering without
// credentials beside one demanding them is a bypass of the protected one (A2A §5.1).
// Only lookups sent without the caller's credentials count as open.
func authFindings(results []Result) []card.Finding {
	var open, protected []string
	var source string
	for _, r := range results {
		switch {
		case r.Outcome == wire.Served && !r.Credentials:
			open = append(open, r.Interface.String())
			if source == "" {
				source = r.Interface.Source.String()
			}
		case r.Outcome == wire.AuthRequired:
			protected = append(protected, r.Interface.String())
		}
	}
	if len(open) == 0 || len(protected) == 0 {
		return nil
	}
	return []card.Finding{{Code: card.CodeAuthNotEquivalent, Severity: card.SeverityError,
		Message: fmt.Sprintf("not every binding demands the same authentication: %s answer without credentials, while %s demand them; a client refused on one walks in on the other",
			strings.Join(open, ", "), strings.Join(protected, ", ")),
		Fix:       "put the same authentication in front of every declared interface (A2A §5.1), or remove the open one from the card",
		Interface: source}}
}

// mappingFindings reports, once per interface, A2A error answers whose codes differ
// from the specification's table.
func mappingFindings(results []Result, caps []CapabilityResult) []card.Finding {
	var out []card.Finding
	seen := map[string]bool{}
	add := func(iface card.Interface, what, problem string) {
		if problem == "" {
			return
		}
		key := iface.Key() + "\x00" + problem
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, card.Finding{Code: card.CodeErrorMapping, Severity: card.SeverityWarning,
			Message:   fmt.Sprintf("%s, %s: %s", iface, what, problem),
			Fix:       "answer A2A errors with the codes of the specification's table for the binding (A2A §5.4), with a google.rpc.ErrorInfo on gRPC and HTTP+JSON",
			Interface: iface.Source.String()})
	}
	for _, r := range results {
		add(r.Interface, "task lookup", r.Mapping)
	}
	for _, cr := range caps {
		for _, call := range cr.Calls {
			add(call.Interface, string(cr.Name)+" call", call.Mapping)
		}
	}
	return out
}
