package wire

import "github.com/a2abind/a2abind/card"

// Policy is the fallback policy of one call: after a failed attempt on one interface,
// whether the call moves on to the next. It rests on Classify, which gives a "never
// reached" outcome only with proof. The delegate's calls and probe's a2abind-delegate
// prediction both walk card.CallOrder with it, so the prediction is the delegate's own
// decision.
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

// Decide applies the policy to an attempt's outcome. withheld reports that the caller's
// credentials were not sent to that interface (another origin), so that an
// authentication failure there says nothing about the credentials.
func (p Policy) Decide(o Outcome, withheld bool) Step {
	switch {
	case o == AuthRequired && withheld:
		return Step{Next: true, Why: "credentials withheld: not the card's origin (see WithCredentialHosts)"}
	case o == AuthRequired:
		return Step{Why: "stops: the same credentials fail on every interface"}
	case !o.ReachedHandler():
		return Step{Next: true} // Classify proved that no handler ran there
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

// Tried is what one attempt of Walk's try function gave.
type Tried struct {
	// Outcome is the attempt's outcome.
	Outcome Outcome
	// Withheld reports that the caller's credentials were not sent there.
	Withheld bool
	// Final ends the walk whatever the outcome (the caller's context is done, a stream
	// failed after its first event, the consumer stopped reading).
	Final bool
}

// Walked is how a Walk ended.
type Walked struct {
	// Last is the index of the last interface tried; -1 when there was none.
	Last int
	// Step is the policy's decision after the last attempt.
	Step Step
	// Exhausted reports that every interface was tried and none answered.
	Exhausted bool
}

// Walk tries ifaces in order with try until one is served, an attempt is final, or
// the policy stops the call.
func (p Policy) Walk(ifaces []card.Interface, try func(card.Interface) Tried) Walked {
	w := Walked{Last: -1}
	for n, iface := range ifaces {
		t := try(iface)
		w.Last, w.Step = n, p.Decide(t.Outcome, t.Withheld)
		if t.Final || !w.Step.Next {
			return w
		}
	}
	w.Exhausted = true
	return w
}
