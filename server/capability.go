package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// provided is what this server serves of the capabilities a card declares:
//   - streaming always: every binding it mounts is a2a-go's handler, which serves
//     SendStreamingMessage and SubscribeToTask (JSON-RPC and HTTP+JSON as SSE, gRPC as
//     server streams; v1.0 and v0.3);
//   - push notifications only with a config store and a sender (WithPushNotifications);
//   - the extended card only with a producer (WithExtendedAgentCard,
//     WithDerivedExtendedCard).
func (o *options) provided() a2a.AgentCapabilities {
	return a2a.AgentCapabilities{
		Streaming:         true,
		PushNotifications: o.pushStore != nil && o.pushSender != nil,
		ExtendedAgentCard: o.extendedCard != nil || o.extendedDerived,
	}
}

// extendedProducer is what serves GetExtendedAgentCard, nil when nothing is configured.
func (srv *Server) extendedProducer() a2asrv.ExtendedAgentCardProducer {
	if srv.o.extendedCard != nil {
		return srv.o.extendedCard
	}
	if !srv.o.extendedDerived {
		return nil
	}
	ac := srv.agentCard()
	return a2asrv.ExtendedAgentCardProducerFn(func(context.Context, *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
		return ac, nil
	})
}

// ErrCapabilityNotServed is matched (errors.Is) by every *CapabilityError: the card
// declares a capability this server does not provide.
var ErrCapabilityNotServed = errors.New("card declares a capability that is not served")

// CapabilityError is the publish-time refusal of a hand-written card that claims a
// capability this server does not provide. New joins one per such capability.
type CapabilityError struct {
	// Capability is the capability claimed.
	Capability probe.Capability
	// Source is the card member that claims it ("capabilities.pushNotifications",
	// "supportsAuthenticatedExtendedCard").
	Source string
	// Problem says what the server lacks and what clients that rely on the claim get.
	Problem string
	// Fix says how to serve it.
	Fix string
}

// Error names the capability, the member that claims it, why it is refused and what to
// change.
func (e *CapabilityError) Error() string {
	return fmt.Sprintf("card member %s declares the capability %s: %s; %s, or set %s to false",
		e.Source, e.Capability, e.Problem, e.Fix, e.Source)
}

// Is makes errors.Is(err, ErrCapabilityNotServed) true.
func (e *CapabilityError) Is(target error) bool { return target == ErrCapabilityNotServed }

// lacking says, per capability this server may lack (streaming it always provides), what
// it lacks and how to serve it.
var lacking = map[probe.Capability]struct{ problem, fix string }{
	probe.PushNotifications: {"this server has no push config store and sender: clients that register a webhook get PushNotificationNotSupported",
		"serve them (WithPushNotifications; serve --push)"},
	probe.ExtendedAgentCard: {"this server has no extended card: clients that fetch it get UnsupportedOperation",
		"serve one (WithExtendedAgentCard or WithDerivedExtendedCard; serve --extended-card)"},
}

// flag is capability k's field in caps (a2a-go's model of the card's claims), nil for
// a capability it does not name.
func flag(caps *a2a.AgentCapabilities, k probe.Capability) *bool {
	switch k {
	case probe.Streaming:
		return &caps.Streaming
	case probe.PushNotifications:
		return &caps.PushNotifications
	case probe.ExtendedAgentCard:
		return &caps.ExtendedAgentCard
	}
	return nil
}

// checkClaims refuses a card that claims a capability this server does not provide
// (one *CapabilityError per capability, joined), and otherwise returns the card's
// claims: what the handler serves from then on (a2asrv.WithCapabilityChecks), so that a
// capability the card leaves out is refused too.
func (srv *Server) checkClaims(c *card.Card) (*a2a.AgentCapabilities, error) {
	provided := srv.o.provided()
	claimed := &a2a.AgentCapabilities{}
	var errs []error
	for _, k := range probe.AllCapabilities() {
		cl := k.Claim(c)
		if p := flag(claimed, k); p != nil {
			*p = cl.Declared
		}
		if p := flag(&provided, k); cl.Declared && (p == nil || !*p) {
			l := lacking[k]
			errs = append(errs, &CapabilityError{Capability: k, Source: cl.Source, Problem: l.problem, Fix: l.fix})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return claimed, nil
}

// capabilityText names a declared capability the self-check did not find served, the
// member claiming it and each call that did not show it served.
func capabilityText(cr probe.CapabilityResult) string {
	var calls []string
	for _, c := range cr.Calls {
		if c.Outcome != probe.CapabilityServed {
			calls = append(calls, fmt.Sprintf("%s: %s: %s", c.Interface, c.Outcome, c.Detail))
		}
	}
	if len(calls) == 0 {
		calls = append(calls, "no served interface to ask")
	}
	return fmt.Sprintf("capability %s (%s) is declared but %s: %s", cr.Name, cr.Claim.Source, cr.Verdict, strings.Join(calls, ", "))
}
