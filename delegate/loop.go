package delegate

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2abind/a2abind/wire"
)

// judge classifies a failed attempt with wire.Judge.
func judge(ev wire.Evidence, callErr error) wire.Verdict {
	v := wire.Judge(ev)
	if v.Outcome == wire.Served {
		// A handler answered, and the call still failed: an A2A error, or an answer
		// a2a-go could not read. Either way the request reached the agent.
		v.Outcome = wire.AgentError
	}
	if v.Outcome == wire.AgentError && callErr != nil {
		v.Why += ": " + clip(callErr.Error())
	}
	return v
}

// tried is what the walk learns from a failed attempt's verdict.
func (c *Client) tried(iface card.Interface, v wire.Verdict) wire.Tried {
	return wire.Tried{Outcome: v.Outcome, Weight: v.Weight, Withheld: c.withheld[iface.Key()]}
}

// walker is the wire.Walker of one call: try makes the attempts, pending holds the
// failed attempt being decided, and the decision is logged (alog), cached and ended in
// the attempt's span (cs) once per attempt. The confirming lookup runs under the
// attempt's span.
func (c *Client) walker(ctx context.Context, cs *callSpan, alog *attemptLog, pending *Attempt, try func(card.Interface) wire.Tried) wire.Walker {
	return wire.Walker{
		Try:    try,
		Lookup: func(iface card.Interface) wire.Outcome { return c.lookup(cs.attemptContext(ctx), iface) },
		Decided: func(iface card.Interface, t wire.Tried, step wire.Step) {
			if t.Unsent {
				alog.add(Attempt{Interface: iface, Outcome: t.Outcome, Detail: step.Why})
				return
			}
			if t.Final || t.Outcome == wire.Served {
				cs.decided(iface, t, step, "")
				return // logged by try
			}
			c.settle(ctx, iface, t.Outcome, step)
			a := *pending
			a.Outcome, a.Detail = t.Outcome, withWhy(a.Detail, t.Outcome, step)
			cs.decided(iface, t, step, a.Detail)
			alog.add(a)
		},
	}
}

// clip makes network text fit a one-line detail: line breaks written as \n and \r (an
// agent's message must not add lines to the attempt list), and at most 300 bytes.
func clip(s string) string {
	return wording.Truncate(lineBreaks.Replace(s), 300)
}

var lineBreaks = strings.NewReplacer("\r", `\r`, "\n", `\n`)

// policy is the fallback policy of an operation.
func (c *Client) policy(idempotent bool) wire.Policy {
	return wire.Policy{Idempotent: idempotent, Resend: c.opts.resend}
}

// stopKind is the sentinel of a call the policy stopped after an attempt with outcome o.
func stopKind(o wire.Outcome) error {
	switch o {
	case wire.AuthRequired:
		return ErrAuth
	case wire.AgentError:
		return ErrAgent
	}
	return ErrAmbiguous
}

// settle records a failed attempt's lesson in the cache: a handler answered there
// (AgentError), or the interface proved unusable (the walk moves on).
func (c *Client) settle(ctx context.Context, iface card.Interface, o wire.Outcome, step wire.Step) {
	switch {
	case o == wire.AgentError:
		c.cache.record(c.card, c.key, iface, true) // a handler answered there
	case step.Next && ctx.Err() == nil && !c.withheld[iface.Key()]:
		c.cache.record(c.card, c.key, iface, false)
	}
}

// withWhy appends the policy's reason to an attempt's detail when it says something.
func withWhy(detail string, o wire.Outcome, step wire.Step) string {
	if step.Why == "" || (step.Next && o != wire.AuthRequired && o != wire.Ambiguous) {
		return detail
	}
	return detail + "; " + step.Why
}

// served is the Attempt of an interface that answered (detail says how), recorded in
// the cache as one where a handler answered.
func (c *Client) served(iface card.Interface, rec *recorder, detail string, lat time.Duration) Attempt {
	c.cache.record(c.card, c.key, iface, true)
	return Attempt{Interface: iface, Outcome: wire.Served, Detail: detail, Latency: lat, Evidence: rec.evidence(iface.Binding, iface.ProtocolVersion, nil)}
}

// failed judges an attempt that failed with err, for calls and streams alike: *pending
// becomes its Attempt for the walk to decide on. When the call's own context ended, the
// attempt is logged and final, and kind is the call's error kind (ambiguous once the
// request was written); otherwise kind is nil and the walk decides.
func (c *Client) failed(ctx context.Context, cs *callSpan, iface card.Interface, alog *attemptLog, pending *Attempt, rec *recorder, err error, lat time.Duration) (t wire.Tried, kind error) {
	ev := rec.evidence(iface.Binding, iface.ProtocolVersion, err)
	v := judge(ev, err)
	*pending = Attempt{Interface: iface, Outcome: v.Outcome, Detail: v.Why + rec.redirectNote(), Latency: lat, Evidence: ev, AttemptTimedOut: rec.isTimedOut()}
	cs.failed(pending.Detail, ev)
	if ctx.Err() == nil {
		return c.tried(iface, v), nil
	}
	kind = ErrExhausted
	if ev.Sent {
		kind = ErrAmbiguous
	}
	alog.add(*pending)
	return wire.Tried{Outcome: v.Outcome, Final: true}, kind
}

// stopped is the error of a walk that ended with no answer and no final attempt: the
// candidates ran out, or the policy stopped after the last attempt.
func (c *Client) stopped(op string, w wire.Walked, attempts []Attempt, lastErr error) *Error {
	if w.Exhausted || len(attempts) == 0 {
		return c.failure(op, ErrExhausted, attempts, lastErr)
	}
	return c.failure(op, stopKind(attempts[len(attempts)-1].Outcome), attempts, lastErr)
}

// failure builds the *Error of a call that stopped.
func (c *Client) failure(op string, kind error, attempts []Attempt, err error) *Error {
	return &Error{Op: op, Agent: c.agentName(), Kind: kind, Attempts: attempts, SecuritySchemes: c.card.SecuritySchemes, Err: err}
}

type callFn[T any] func(ctx context.Context, t a2aclient.Transport, p a2aclient.ServiceParams, iface card.Interface) (T, error)

// call runs a unary operation across the candidates under the fallback policy.
func call[T any](ctx context.Context, c *Client, op string, idempotent bool, fn callFn[T]) (res T, err error) {
	ctx, cs := c.startCall(ctx, op)
	defer func() { cs.end(err) }()
	pol := c.policy(idempotent)
	alog := newAttemptLog(ctx, c)
	var lastErr, closedErr, finalKind error
	var served []Attempt
	var pending Attempt
	w := pol.Walk(c.order(), c.walker(ctx, cs, alog, &pending, func(iface card.Interface) wire.Tried {
		if err := ctx.Err(); err != nil {
			finalKind, lastErr = ErrExhausted, err
			return wire.Tried{Final: true}
		}
		rec := &recorder{}
		actx := withRecorder(cs.attempt(ctx, iface), rec)
		cancel := context.CancelFunc(func() {})
		if c.opts.attemptTimeout > 0 {
			actx, cancel = context.WithTimeout(actx, c.opts.attemptTimeout)
		}
		start := time.Now()
		t, err := c.transport(actx, iface)
		if errors.Is(err, ErrClosed) {
			cancel()
			closedErr = err
			return wire.Tried{Final: true}
		}
		if err == nil {
			res, err = fn(actx, t, c.params[iface.Key()], iface)
		}
		lat := time.Since(start)
		if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			rec.markTimedOut() // the attempt's own bound fired, not the call's
		}
		cancel()
		if err == nil {
			cs.answered(res)
			served = append(served, c.served(iface, rec, "answered", lat))
			return wire.Tried{Outcome: wire.Served, Weight: wire.HandlerAnswered}
		}
		lastErr = err
		tried, kind := c.failed(ctx, cs, iface, alog, &pending, rec, err, lat)
		if kind != nil {
			finalKind = kind
		}
		return tried
	}))
	attempts := alog.flush(served...)
	var zero T
	switch {
	case closedErr != nil:
		return zero, closedErr
	case len(served) > 0:
		return res, nil
	case finalKind != nil:
		return zero, c.failure(op, finalKind, attempts, lastErr)
	}
	return zero, c.stopped(op, w, attempts, lastErr)
}

type streamFn func(ctx context.Context, t a2aclient.Transport, p a2aclient.ServiceParams, iface card.Interface) iter.Seq2[a2a.Event, error]

// stream runs a streaming operation across the candidates under the fallback policy: it
// falls back only before the first event.
func (c *Client) stream(ctx context.Context, op string, idempotent bool, fn streamFn) iter.Seq2[a2a.Event, error] {
	return func(out func(a2a.Event, error) bool) {
		ctx, cs := c.startCall(ctx, op)
		var callErr error // what the stream ended with, for its span
		yield := func(ev a2a.Event, err error) bool {
			if err != nil {
				callErr = err
			}
			return out(ev, err)
		}
		defer func() { cs.end(callErr) }()
		pol := c.policy(idempotent)
		alog := newAttemptLog(ctx, c)
		defer alog.flush() // no naming outlives the call
		var lastErr error
		done := false // the stream was delivered, or its end was yielded
		var pending Attempt
		w := pol.Walk(c.order(), c.walker(ctx, cs, alog, &pending, func(iface card.Interface) wire.Tried {
			if err := ctx.Err(); err != nil {
				yield(nil, c.failure(op, ErrExhausted, alog.flush(), err))
				done = true
				return wire.Tried{Final: true}
			}
			rec := &recorder{}
			actx, cancelCause := context.WithCancelCause(withRecorder(cs.attempt(ctx, iface), rec))
			cancel := func() { cancelCause(nil) }
			var firstEventTimer *time.Timer
			if d := c.opts.attemptTimeout; d > 0 {
				firstEventTimer = time.AfterFunc(d, func() {
					rec.markTimedOut()
					cancelCause(context.DeadlineExceeded)
				})
			}
			start := time.Now()
			t, err := c.transport(actx, iface)
			if errors.Is(err, ErrClosed) {
				cancel()
				alog.flush()
				yield(nil, err)
				done = true
				return wire.Tried{Final: true}
			}
			events := 0
			if err == nil {
				for ev, serr := range fn(actx, t, c.params[iface.Key()], iface) {
					if serr != nil {
						err = serr
						break
					}
					cs.answered(ev)
					if events == 0 {
						if firstEventTimer != nil {
							firstEventTimer.Stop()
						}
						alog.answered(c.served(iface, rec, "first event", time.Since(start)))
					}
					events++
					if !yield(ev, nil) {
						cancel()
						done = true
						return wire.Tried{Outcome: wire.Served, Weight: wire.HandlerAnswered, Final: true}
					}
				}
			}
			cancel()
			if firstEventTimer != nil {
				firstEventTimer.Stop()
			}
			if err == nil && events == 0 {
				// No event and no error: an empty stream, or an answer a2a-go's stream
				// reader skipped (a JSON-RPC error object instead of SSE, as a server of
				// another protocol version sends). The wire evidence tells them apart.
				if o, _ := wire.Classify(rec.evidence(iface.Binding, iface.ProtocolVersion, nil)); o == wire.Served {
					alog.flush(c.served(iface, rec, "empty stream", time.Since(start)))
					done = true
					return wire.Tried{Outcome: wire.Served, Weight: wire.HandlerAnswered}
				}
				err = errNoEvent
			}
			switch {
			case err == nil:
				done = true
				return wire.Tried{Outcome: wire.Served, Weight: wire.HandlerAnswered}
			case events > 0:
				ev := rec.evidence(iface.Binding, iface.ProtocolVersion, err)
				o, detail := wire.Classify(ev)
				cs.failed(detail, ev)
				e := c.failure(op, ErrStreamBroken, alog.flush(), err)
				e.Note = fmt.Sprintf("after %d events: %s (%s); not resumed on another interface", events, o, detail)
				yield(nil, e)
				done = true
				return wire.Tried{Outcome: o, Final: true}
			}
			lastErr = err
			tried, kind := c.failed(ctx, cs, iface, alog, &pending, rec, err, time.Since(start))
			if kind != nil {
				yield(nil, c.failure(op, kind, alog.flush(), err))
				done = true
			}
			return tried
		}))
		if !done {
			yield(nil, c.stopped(op, w, alog.flush(), lastErr))
		}
	}
}
