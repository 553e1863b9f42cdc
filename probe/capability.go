package probe

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// Capability names a capability an AgentCard claims. The strings are a stable contract
// (the JSON report, the exporter's a2abind_capability_up label).
type Capability string

// The capabilities Check checks, each with the side-effect-free call that shows it.
const (
	// Streaming is capabilities.streaming, shown by SubscribeToTask (0.3:
	// tasks/resubscribe) of a random task id.
	Streaming Capability = "streaming"
	// PushNotifications is capabilities.pushNotifications, shown by
	// ListTaskPushNotificationConfigs (0.3: tasks/pushNotificationConfig/list) of a
	// random task id.
	PushNotifications Capability = "pushNotifications"
	// ExtendedAgentCard is capabilities.extendedAgentCard (0.3:
	// supportsAuthenticatedExtendedCard), shown by GetExtendedAgentCard (0.3:
	// agent/getAuthenticatedExtendedCard).
	ExtendedAgentCard Capability = "extendedAgentCard"
)

// AllCapabilities returns the capabilities Check checks, in report order.
func AllCapabilities() []Capability {
	return []Capability{Streaming, PushNotifications, ExtendedAgentCard}
}

// Claim returns what c says about capability k.
func (k Capability) Claim(c *card.Card) card.Claim {
	switch k {
	case Streaming:
		return c.Capabilities.Streaming
	case PushNotifications:
		return c.Capabilities.PushNotifications
	case ExtendedAgentCard:
		return c.Capabilities.ExtendedAgentCard
	}
	return card.Claim{}
}

// Served says whether a capability, or one call for it, is served. The strings are a
// stable contract.
type Served string

const (
	// CapabilityServed: the method answers (TaskNotFound for the random id, an empty
	// push-config list, a card; for the extended card also an authentication error when
	// the card declares security schemes).
	CapabilityServed Served = "served"
	// CapabilityNotServed: the method is refused (UnsupportedOperation,
	// PushNotificationNotSupported, ExtendedAgentCardNotConfigured) or not there
	// (MethodNotFound, UNIMPLEMENTED, no route).
	CapabilityNotServed Served = "not_served"
	// CapabilityAuthRequired: the call asks for credentials (a call's outcome only).
	CapabilityAuthRequired Served = "auth_required"
	// CapabilityUnknown: the answers cannot tell (a timeout, a 5xx, another error), or no
	// declared interface was served to ask.
	CapabilityUnknown Served = "unknown"
)

// CapabilityCall is one capability's call on one interface.
type CapabilityCall struct {
	// Interface is the declared interface called (the first served one of its binding).
	Interface card.Interface
	// Outcome is what the answer shows.
	Outcome Served
	// Detail is the evidence: the request and what came back, then Reason.
	Detail string
	// Reason is the reading of the answer that gave Outcome ("refused:
	// UNSUPPORTED_OPERATION", "JSON-RPC error -32601: the method is not there").
	Reason string
	// Latency is how long the call took.
	Latency time.Duration
	// Mapping says how the call's A2A error answer differs from the specification's
	// error table for its binding (wire.MappingProblem); "" when it agrees.
	Mapping string
	// At is when the call was made: an Engine reuses a call for WithCapabilityMaxAge.
	At time.Time
}

// CapabilityResult is one capability checked on a served interface of each declared
// binding.
type CapabilityResult struct {
	// Name is the capability.
	Name Capability
	// Claim is what the card says about it.
	Claim card.Claim
	// Verdict is not_served when any call shows it not served (clients of that binding
	// fail), served when every call shows it served, unknown otherwise.
	Verdict Served
	// Calls are the calls, one per checked binding, in card order.
	Calls []CapabilityCall
}

// Declared reports whether the card claims the capability.
func (r CapabilityResult) Declared() bool { return r.Claim.Declared }

// CardCheck is everything Check found about a card: each interface's result, as Card
// returns them, and each capability's.
type CardCheck struct {
	// Results are the interfaces' results, in card order.
	Results []Result
	// Capabilities are the capabilities' results, in AllCapabilities order; empty when
	// WithCapabilities(false) was given.
	Capabilities []CapabilityResult
}

// Report is Diagnose of the check: findings (with the capability findings) and the
// client-impact table.
func (ch CardCheck) Report(c *card.Card) Report { return Diagnose(c, ch.Results, ch.Capabilities...) }

// WithCapabilities says whether Check and Engine.Targets check the card's capabilities
// besides its interfaces (default true). Card and Interface never do.
func WithCapabilities(on bool) Option { return func(o *options) { o.noCapabilities = !on } }

// Check probes c's interfaces as Card does and, in parallel with those lookups, checks
// each capability (Streaming, PushNotifications, ExtendedAgentCard) on an interface of
// each declared core binding with one side-effect-free call, on a fresh Engine closed
// before it returns. A binding none of whose interfaces turns out served is not asked.
// Engine.Check reuses an interface's capability calls for WithCapabilityMaxAge.
func Check(ctx context.Context, c *card.Card, opts ...Option) CardCheck {
	e := NewEngine()
	defer e.Close()
	return e.Check(ctx, c, opts...)
}

// capabilityOps is the operation that shows each capability.
var capabilityOps = map[Capability]operation{
	Streaming:         opSubscribe,
	PushNotifications: opListPushConfigs,
	ExtendedAgentCard: opExtendedCard,
}

// refusals are the A2A errors (rows of wire's table) that say a capability is not
// served: its own refusal, UnsupportedOperation, and no such method.
var refusals = map[Capability][]error{
	Streaming:         {a2a.ErrUnsupportedOperation, a2a.ErrMethodNotFound},
	PushNotifications: {a2a.ErrPushNotificationNotSupported, a2a.ErrUnsupportedOperation, a2a.ErrMethodNotFound},
	ExtendedAgentCard: {a2a.ErrExtendedCardNotConfigured, a2a.ErrUnsupportedOperation, a2a.ErrMethodNotFound},
}

// Check is the package-level Check on the Engine's warm connections.
func (e *Engine) Check(ctx context.Context, c *card.Card, opts ...Option) CardCheck {
	if c == nil {
		return CardCheck{}
	}
	o := newOptions(opts)
	if o.noCapabilities {
		return CardCheck{Results: e.Card(ctx, c, opts...)}
	}
	ifaces := c.Interfaces
	if n := o.conn.Interfaces(); len(ifaces) > n {
		ifaces = ifaces[:n]
	}
	// The first interface of each core binding is asked its capability calls one after
	// the other (one connection): in a lane of their own beside its lookup, or, in a
	// lane whose requests take turns on the card fetch's connection, after the lookup.
	first := map[int]bool{}
	seen := map[a2a.TransportProtocol]bool{}
	for i, iface := range ifaces {
		if b, ok := addr.CanonicalBinding(iface.Binding); ok && !seen[b] {
			seen[b], first[i] = true, true
		}
	}
	calls := make(map[int][]CapabilityCall, len(first))
	var mu sync.Mutex
	var wg sync.WaitGroup
	ask := func(i int) {
		got := e.capabilityCalls(ctx, c, ifaces[i], opts)
		mu.Lock()
		calls[i] = got
		mu.Unlock()
	}
	results := e.card(ctx, c, opts, func(n int, turns bool) func() {
		switch {
		case !first[n]:
			return nil
		case turns:
			return func() { ask(n) }
		}
		wg.Go(func() { ask(n) })
		return nil
	})
	wg.Wait()
	// Calls made beside a lookup that reached no handler say nothing the next check may
	// reuse: once a handler is there (a service registered late), they are asked again.
	for i := range first {
		if !results[i].Outcome.Reached() {
			_, _, key, _ := e.capabilitySetup(c, ifaces[i], opts)
			e.caps.forget(key)
		}
	}
	// Keep, per binding, the calls on its first served interface; ask it now when that
	// is not the one asked above.
	var asked []int
	for _, b := range addr.CoreBindings {
		at := slices.IndexFunc(results, func(r Result) bool {
			cb, _ := addr.CanonicalBinding(r.Interface.Binding)
			return cb == b && r.Outcome.Reached()
		})
		if at < 0 {
			continue
		}
		if _, ok := calls[at]; !ok {
			calls[at] = e.capabilityCalls(ctx, c, ifaces[at], opts)
		}
		asked = append(asked, at)
	}
	slices.Sort(asked)
	out := make([]CapabilityResult, 0, len(capabilityOps))
	for n, k := range AllCapabilities() {
		cr := CapabilityResult{Name: k, Claim: k.Claim(c)}
		for _, i := range asked {
			cr.Calls = append(cr.Calls, calls[i][n])
		}
		cr.Verdict = verdict(cr.Calls)
		out = append(out, cr)
	}
	return CardCheck{Results: results, Capabilities: out}
}

// verdict sums up a capability's calls.
func verdict(calls []CapabilityCall) Served {
	if len(calls) == 0 {
		return CapabilityUnknown
	}
	if slices.ContainsFunc(calls, func(c CapabilityCall) bool { return c.Outcome == CapabilityNotServed }) {
		return CapabilityNotServed
	}
	if !slices.ContainsFunc(calls, func(c CapabilityCall) bool { return c.Outcome != CapabilityServed }) {
		return CapabilityServed
	}
	return CapabilityUnknown
}

// capabilityCalls makes every capability's call on iface, one after the other so that
// they take turns on one connection, and returns them in AllCapabilities order; calls
// the Engine made on the same interface for the same caller within the max age are
// reused (capability_cache.go).
func (e *Engine) capabilityCalls(ctx context.Context, c *card.Card, iface card.Interface, opts []Option) []CapabilityCall {
	o, local, key, maxAge := e.capabilitySetup(c, iface, opts)
	if calls, ok := e.caps.get(key, maxAge); ok {
		return calls
	}
	calls := e.askCapabilities(ctx, c, iface, local, o)
	if ctx.Err() == nil { // calls the caller cut short (a canceled scrape) say nothing of the agent
		e.caps.put(key, calls, maxAge)
	}
	return calls
}

// capabilitySetup is what capabilityCalls needs for iface: its options, where it is
// asked, its cache key and the calls' max age.
func (e *Engine) capabilitySetup(c *card.Card, iface card.Interface, opts []Option) (*options, card.Interface, capabilityKey, time.Duration) {
	o := newOptions(opts)
	o.cardCredentials(c, e.urls.address)
	o.engine = e
	local := localInterfaces([]card.Interface{iface}, o.via)[0]
	maxAge := DefaultCapabilityMaxAge
	if o.capMaxAgeSet {
		maxAge = o.capMaxAge
	}
	return o, local, newCapabilityKey(c, iface, local, o), maxAge
}

// askCapabilities makes every capability's call on iface (asked at local), in turn.
func (e *Engine) askCapabilities(ctx context.Context, c *card.Card, iface, local card.Interface, o *options) []CapabilityCall {
	secured := len(c.SecuritySchemes) > 0
	out := make([]CapabilityCall, len(capabilityOps))
	for n, k := range AllCapabilities() {
		oc := *o
		out[n] = e.capabilityCall(ctx, k, local, &oc, secured)
		out[n].Interface, out[n].At = iface, time.Now()
	}
	return out
}

// capabilityCall makes capability k's call on one interface and reads the answer.
func (e *Engine) capabilityCall(ctx context.Context, k Capability, iface card.Interface, o *options, secured bool) CapabilityCall {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	r := newRun(iface, o)
	ep, err := parseEndpoint(iface.URL, r.binding)
	if err != nil || r.custom {
		return CapabilityCall{Outcome: CapabilityUnknown, Detail: "not asked", Reason: "the interface is not one a2abind can call"}
	}
	if err := r.admit(ctx, ep); err != nil {
		return CapabilityCall{Outcome: CapabilityUnknown, Detail: "not asked", Reason: err.Error()}
	}
	version, _, _ := versions(iface.ProtocolVersion)
	req := request{ep: ep, version: version, tenant: iface.Tenant, taskID: r.taskID, o: o, mode: tlsAuto, op: capabilityOps[k]}
	ctx, span := startCall(ctx, req) // trace.go
	start := time.Now()
	a := probers[r.binding](ctx, req)
	call := CapabilityCall{Latency: time.Since(start), Detail: a.describe()}
	call.Outcome, call.Reason = callOutcome(k, a.ev, secured)
	call.Detail += " (" + call.Reason + ")"
	call.Mapping = wire.MappingProblem(a.ev)
	endCapabilityCall(span, req, r.binding, a, k, call)
	return call
}

// callOutcome reads one capability call's answer: wire.Classify's outcome and the A2A
// error row the answer names (wire.ErrorIn), never a reading of its own.
func callOutcome(k Capability, ev wire.Evidence, secured bool) (Served, string) {
	o, why := wire.Classify(ev)
	if row, ok := wire.ErrorIn(ev); ok && slices.ContainsFunc(refusals[k], func(err error) bool { return errors.Is(row.Err, err) }) {
		return CapabilityNotServed, "refused: " + row.Reason()
	}
	switch o {
	case wire.Served:
		return CapabilityServed, why
	case wire.AuthRequired:
		if k == ExtendedAgentCard && secured {
			return CapabilityServed, why + ": the extended card asks for the credentials the card's security schemes name"
		}
		return CapabilityAuthRequired, why
	case wire.HandlerMissing, wire.NotFound:
		return CapabilityNotServed, why + ": the method is not there"
	}
	return CapabilityUnknown, why
}
