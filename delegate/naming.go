package delegate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// nameBudget bounds the probe that names what an interface serves after an attempt
// there proved that no handler was reached (and it takes at most half of what is left
// of the call's context).
const nameBudget = 5 * time.Second

// needsName reports whether a lookup can name a failure better than the call's own
// evidence: a route, a protocol or a version refused.
func needsName(o wire.Outcome) bool {
	return o == wire.HandlerMissing || o == wire.NotFound || o == wire.Malformed
}

// name names a failed attempt that proved no handler was reached: the interface is
// probed (probe.Name: side-effect-free lookups of a random task id), so that send and
// probe name it alike. The decision to move on was already made from the call's own
// evidence; the probe only names it, alongside the next attempt.
func (c *Client) name(ctx context.Context, a *Attempt) {
	if ctx.Err() != nil {
		return
	}
	opts := c.lookupOptions(ctx, a.Interface)
	if opts == nil {
		return
	}
	r := probe.Name(ctx, a.Interface, a.Outcome, opts...)
	if !sharpens(a.Outcome, r.Outcome) {
		return
	}
	a.Outcome, a.Detail = r.Outcome, fmt.Sprintf("%s; probed: %s", a.Detail, r.Outcome)
	if r.ActualBinding != "" {
		a.Detail += fmt.Sprintf(", %s %s is served there", r.ActualBinding, r.ActualVersion)
		a.Served = &card.Interface{URL: a.Interface.URL, Binding: r.ActualBinding, ProtocolVersion: r.ActualVersion}
	}
}

// lookupOptions are the probe options of a side-effect-free lookup at iface on the
// client's behalf (naming a failure, locating a route): its connection configuration
// and credential policy, and a budget of at most nameBudget, the attempt bound, and
// half of what is left of ctx. nil when no time is left.
func (c *Client) lookupOptions(ctx context.Context, iface card.Interface) []probe.Option {
	budget := nameBudget
	if d := c.opts.attemptTimeout; d > 0 && d < budget {
		budget = d
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl)/2 < budget {
		budget = time.Until(dl) / 2 // leave the next interfaces most of the call's time
	}
	if budget < time.Millisecond {
		return nil
	}
	conn := c.opts.conn
	if c.withheld[iface.Key()] {
		conn.Header = nil
	}
	return []probe.Option{probe.WithConn(conn), probe.WithTimeout(budget), probe.WithCredentialPolicy(c.creds)}
}

// mayServePlaintext reports whether a failed attempt may have met plaintext gRPC: TLS
// refused or not understood at a bare gRPC host:port that the client dials over TLS
// only (not loopback, no WithPlaintextGRPC).
func (c *Client) mayServePlaintext(a Attempt) bool {
	if a.Interface.Binding != a2a.TransportProtocolGRPC || (a.Outcome != wire.TLSMismatch && a.Outcome != wire.Malformed) {
		return false
	}
	declared, ok := c.addrs[a.Interface.Key()]
	useTLS, plain := c.tlsModes(declared)
	return ok && declared.TLS == addr.TLSUnknown && useTLS && !plain
}

// plaintextServed looks iface up (probe.Locate: plaintext first, then TLS) and reports
// whether it is served in plaintext. The lookup carries no message and, where the
// credential policy refuses plaintext, no credentials.
func (c *Client) plaintextServed(ctx context.Context, iface card.Interface) bool {
	opts := c.lookupOptions(ctx, iface)
	if opts == nil {
		return false
	}
	w, _, ok := probe.Locate(ctx, iface, opts...)
	return ok && !w.TLS
}

// attemptLog collects a call's attempts. Failed attempts that need a name are named in
// the background while the call goes on; flush waits for the names, patches them in
// and hands the attempts to the trace, in order.
type attemptLog struct {
	c        *Client
	ctx      context.Context
	tr       *Trace
	attempts []Attempt
	flushed  int // attempts already in the trace
	wg       sync.WaitGroup
	mu       sync.Mutex
	names    map[int]Attempt // index -> the named attempt
}

func newAttemptLog(ctx context.Context, c *Client) *attemptLog {
	return &attemptLog{c: c, ctx: ctx, tr: traceFrom(ctx), names: map[int]Attempt{}}
}

// add records a failed attempt and, if it needs one, starts naming it.
func (l *attemptLog) add(a Attempt) {
	n := len(l.attempts)
	l.attempts = append(l.attempts, a)
	plain := l.c.mayServePlaintext(a)
	if !needsName(a.Outcome) && !plain {
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		if needsName(a.Outcome) {
			l.c.name(l.ctx, &a)
		}
		if plain && l.c.plaintextServed(l.ctx, a.Interface) {
			a.PlaintextServed = true
			a.Detail += "; plaintext gRPC is served there, which is not used for a host that is not loopback unless asked (WithPlaintextGRPC, --grpc-plaintext)"
		}
		l.mu.Lock()
		l.names[n] = a
		l.mu.Unlock()
	}()
}

// flush waits for the names and passes the attempts not yet traced to the trace, then
// extra (the attempt that answered, if any). It returns the attempts, named.
func (l *attemptLog) flush(extra ...Attempt) []Attempt {
	l.wg.Wait()
	l.mu.Lock()
	for n, a := range l.names {
		l.attempts[n] = a
	}
	clear(l.names)
	l.mu.Unlock()
	for _, a := range l.attempts[l.flushed:] {
		l.tr.add(a)
	}
	l.flushed = len(l.attempts)
	for _, a := range extra {
		l.tr.add(a)
	}
	return l.attempts
}

// answered records the attempt that answered a stream (its first event): the earlier
// attempts are named and traced first, so the trace is in order when the caller reads
// the stream.
func (l *attemptLog) answered(a Attempt) {
	l.flush()
	l.attempts = append(l.attempts, a)
	l.flushed++
	l.tr.add(a)
}

// sharpens reports whether the probe's name for an interface says more than the call's
// own never-reached outcome, without contradicting it: another version or binding is
// served there (or, for an answer that fit nothing, TLS is the other way round).
func sharpens(call, probed wire.Outcome) bool {
	switch probed {
	case wire.VersionMismatch, wire.WrongBinding:
		return call != probed
	case wire.TLSMismatch:
		return call == wire.Malformed
	}
	return false
}
