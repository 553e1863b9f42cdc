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
	// Unsent reports an interface the walk passed without sending there: its lookup
	// (Outcome) showed no handler after the walk relied on a confirmed answer (Walk).
	Unsent bool
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
	// proof. Nil confirms nothing: such an attempt stays ambiguous for a message. After
	// a confirmed answer, Walk also runs it on the next interfaces (ahead).
	Lookup func(card.Interface) Outcome
	// Decided, if set, is told each attempt (after its lookup) and the policy's step,
	// once per attempt, before the next attempt starts, and each interface passed
	// unsent (Tried.Unsent), in order.
	Decided func(card.Interface, Tried, Step)
}

// Walked is how a Walk ended.
type Walked struct {
	// Last is the index of the last interface tried or passed unsent; -1 when there
	// was none.
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
//
// A confirmation shows "not here" only against a handler elsewhere: a relay that
// answers every call, lookups included, with the same refusal looks like "not here" on
// every interface. So once the walk has moved a message on on a confirmed answer, the
// message goes only to an interface whose lookup a handler answers (a different,
// working handler; see ahead); the interfaces before it are not sent to (Tried.Unsent).
func (p Policy) Walk(ifaces []card.Interface, w Walker) Walked {
	res := Walked{Last: -1}
	decided := func(n int, t Tried, step Step) {
		if w.Decided != nil {
			w.Decided(ifaces[n], t, step)
		}
		res.Last, res.Tried, res.Step = n, t, step
	}
	confirmed := false // the walk moved the message on on a confirmed answer
	for n := 0; n < len(ifaces); n++ {
		t := w.Try(ifaces[n])
		var step Step
		here := false // this attempt's answer was confirmed
		if !t.Final && p.needsLookup(t) {
			t, step = p.confirm(ifaces[n], t, w.Lookup)
			here = step.Next
		} else {
			step = p.Decide(t)
		}
		confirmed = confirmed || here
		var unsent []Tried
		if confirmed && step.Next && !t.Final && n+1 < len(ifaces) {
			t, step, unsent = ahead(t, here, ifaces[n+1:], w.Lookup)
		}
		decided(n, t, step)
		if t.Final || !step.Next {
			return res
		}
		for _, u := range unsent {
			n++
			decided(n, u, Step{Next: true, Why: fmt.Sprintf("not sent there: a lookup there got %s, no handler's answer", u.Outcome)})
		}
	}
	res.Exhausted = true
	return res
}

// ahead runs the lookups on the interfaces a message would move on to (next, in
// order) after the walk relied on a confirmed answer, up to the first one a handler
// answers as one without that task would (Served): that one is a different, working
// handler, and the ones before it are unsent. When no lookup is answered by a handler,
// nothing shows that the confirmed answer was not relayed by a handler that ran: the
// walk stops, and t, when its own answer was the confirmed one (here), is Ambiguous.
func ahead(t Tried, here bool, next []card.Interface, lookup func(card.Interface) Outcome) (Tried, Step, []Tried) {
	var unsent []Tried
	for _, iface := range next {
		got := lookup(iface)
		if got == Served {
			return t, Step{Next: true}, unsent
		}
		unsent = append(unsent, Tried{Outcome: got, Weight: NeedsConfirmation, Unsent: true})
	}
	why := fmt.Sprintf("not sent to the %d other interfaces: no lookup there is answered by a handler, so nothing shows that the first answer was not relayed by one that ran it", len(next))
	if !here {
		return t, Step{Why: why}, nil
	}
	was := t.Outcome
	t.Outcome, t.Weight = Ambiguous, Unproven
	return t, Step{Why: fmt.Sprintf("%s may be relayed by a handler that ran: a lookup there got it too; %s", was, why)}, nil
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
