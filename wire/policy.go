package wire

import (
	"fmt"

	"github.com/a2abind/a2abind/card"
)

// Policy is the fallback policy of one call: after a failed attempt on one interface,
// whether the call moves on to the next. It rests on Judge, which gives a "never
// reached" outcome only with proof or with evidence that needs confirmation (Rules).
// The delegate's calls and probe's a2abind-delegate prediction both walk
// card.CallOrder with it, so the prediction is the delegate's own decision.
type Policy struct {
	// Idempotent marks a read (GetTask, ListTasks, CancelTask, SubscribeToTask): after
	// an ambiguous failure it may run again on the next interface.
	Idempotent bool
	// Resend allows a message to be sent again, with the same messageId, on the next
	// interface after an ambiguous failure.
	Resend bool
}

// Step is what the policy decides after one attempt.
type Step struct {
	// Next reports that the call moves on to the next interface.
	Next bool
	// Why says why, when there is something to say.
	Why string
}

// Tried is what one attempt gave.
type Tried struct {
	// Outcome is the attempt's outcome.
	Outcome Outcome
	// Weight is the weight of its evidence (Verdict.Weight). The zero value counts as
	// NeedsConfirmation for an outcome that did not reach a handler, so a caller that
	// cannot tell never moves a message on without a confirming lookup.
	Weight Weight
	// Withheld reports that the caller's credentials were not sent there.
	Withheld bool
	// Final ends the walk whatever the outcome (the caller's context is done, a stream
	// failed after its first event, the consumer stopped reading).
	Final bool
}

// mayRepeat reports whether the call may run again after an ambiguous attempt.
func (p Policy) mayRepeat() bool { return p.Idempotent || p.Resend }

// needsLookup reports whether t moves the call on only once a lookup confirms it.
func (p Policy) needsLookup(t Tried) bool {
	if t.Outcome.ReachedHandler() || t.Weight == Proves || p.mayRepeat() {
		return false
	}
	return t.Outcome != AuthRequired || t.Withheld // a refusal of our own credentials stops anyway
}

// Decide applies the policy to an attempt (after Walk's confirming lookup, if any).
func (p Policy) Decide(t Tried) Step {
	o := t.Outcome
	switch {
	case o == AuthRequired && t.Withheld && !p.needsLookup(t):
		return Step{Next: true, Why: "credentials withheld: not the card's origin (see WithCredentialHosts)"}
	case o == AuthRequired && !t.Withheld:
		return Step{Why: "stops: the same credentials fail on every interface"}
	case !o.ReachedHandler() && !p.needsLookup(t):
		return Step{Next: true} // Judge proved that no handler ran there, or a read may repeat
	case !o.ReachedHandler():
		return Step{Why: "not resent to another interface: the answer does not prove that no handler ran (see --resend)"}
	case o == Served:
		return Step{Why: "answered"}
	case o == Ambiguous && p.Idempotent:
		return Step{Next: true, Why: "a read: tried again on the next interface"}
	case o == Ambiguous && p.Resend:
		return Step{Next: true, Why: "resent with the same messageId, as the caller allows"}
	case o == Ambiguous:
		return Step{Why: "not resent to another interface (it may have been delivered)"}
	}
	return Step{Why: "stops: the agent answered"}
}

// Walker makes a Walk's attempts.
type Walker struct {
	// Try makes one attempt on an interface.
	Try func(card.Interface) Tried
	// Lookup makes the side-effect-free lookup (GetTask of a random task id) on the same
	// interface and protocol version and returns its outcome, as Judge gives it. It
	// confirms an answer of weight NeedsConfirmation: only the same outcome counts as
	// proof. Nil confirms nothing: such an attempt stays ambiguous for a message.
	Lookup func(card.Interface) Outcome
	// Decided, if set, is told each attempt (after its lookup) and the policy's step,
	// once per attempt, before the next attempt starts.
	Decided func(card.Interface, Tried, Step)
}

// Walked is how a Walk ended.
type Walked struct {
	// Last is the index of the last interface tried; -1 when there was none.
	Last int
	// Tried is the last attempt, after its confirming lookup.
	Tried Tried
	// Step is the policy's decision after the last attempt.
	Step Step
	// Exhausted reports that every interface was tried and none answered.
	Exhausted bool
}

// Walk tries ifaces in order until one is served, an attempt is final, or the policy
// stops the call. After an attempt whose answer needs confirmation (a message, an
// A2A error or an HTTP status a handler could also have produced), it runs w.Lookup on
// the same interface: the same "not here" outcome makes it proof; anything else makes
// the attempt Ambiguous, so the message is not resent. Decide runs once per attempt.
func (p Policy) Walk(ifaces []card.Interface, w Walker) Walked {
	res := Walked{Last: -1}
	for n, iface := range ifaces {
		t := w.Try(iface)
		var step Step
		if !t.Final && p.needsLookup(t) {
			t, step = p.confirm(iface, t, w.Lookup)
		} else {
			step = p.Decide(t)
		}
		if w.Decided != nil {
			w.Decided(iface, t, step)
		}
		res.Last, res.Tried, res.Step = n, t, step
		if t.Final || !step.Next {
			return res
		}
	}
	res.Exhausted = true
	return res
}

// confirm runs the confirming lookup for t and decides.
func (p Policy) confirm(iface card.Interface, t Tried, lookup func(card.Interface) Outcome) (Tried, Step) {
	if lookup == nil {
		return t, p.Decide(t)
	}
	got := lookup(iface)
	if got == t.Outcome {
		t.Weight = Proves
		return t, p.Decide(t)
	}
	was := t.Outcome
	t.Outcome, t.Weight = Ambiguous, Unproven
	step := p.Decide(t)
	step.Why = fmt.Sprintf("%s may be relayed by a handler that ran: a lookup there got %s; %s", was, got, step.Why)
	return t, step
}
