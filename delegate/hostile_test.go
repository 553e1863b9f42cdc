package delegate

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/wire"
)

// boundMargin is how long after its budget a call against a hostile peer may return:
// scheduling on a loaded CI machine, never the peer's pace.
const boundMargin = 3 * time.Second

// startHostile starts a hostile peer closed at cleanup.
func startHostile(t *testing.T, kind lab.Hostile) *lab.HostilePeer {
	t.Helper()
	p, err := lab.StartHostile(kind)
	if err != nil {
		t.Fatalf("lab.StartHostile() error = %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// hostileClient is a client for a card declaring one interface at the peer.
func hostileClient(t *testing.T, p *lab.HostilePeer, b a2a.TransportProtocol, version string, opts ...Option) *Client {
	t.Helper()
	url := p.URL + "/a2a"
	if b == a2a.TransportProtocolGRPC {
		url = p.Addr
		opts = append(opts, WithPlaintextGRPC())
	}
	c, err := NewFromCard(&card.Card{Shape: card.ShapeV1, Name: "hostile", Interfaces: []card.Interface{
		{URL: url, Binding: b, ProtocolVersion: version, Source: card.Supported(0), Preferred: true},
	}}, opts...)
	if err != nil {
		t.Fatalf("NewFromCard() error = %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// timeBound is the budget that must cut a call: the call's deadline or, when shorter,
// the attempt timeout.
func timeBound(ctx, attempt time.Duration) time.Duration {
	if attempt > 0 && attempt < ctx {
		return attempt
	}
	return ctx
}

// allocated returns how many bytes the heap allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHostileUnaryAnswers: a peer answering without end, or one byte at a time, or a
// gRPC server that never answers, costs a unary call at most MaxAnswerBytes of memory
// and its budget (the attempt timeout or the call's context) of time, and the attempt's
// detail says which bound cut it. An answer over MaxAnswerBytes is one the client cannot
// read: the call stops (ErrAgent). One cut by a deadline is ambiguous: a message is not
// resent (ErrAmbiguous), a read may go to the next interface (here there is none).
func TestHostileUnaryAnswers(t *testing.T) {
	const budget = 300 * time.Millisecond
	tests := []struct {
		name     string
		kind     lab.Hostile
		binding  a2a.TransportProtocol
		version  string
		op       string        // "send" or "get"
		attempt  time.Duration // WithAttemptTimeout; 0 leaves the default (3 min): the context bounds
		ctx      time.Duration
		want     wire.Outcome // of the last attempt
		contains string
	}{
		{name: "endless JSON-RPC answer", kind: lab.EndlessBody, binding: a2a.TransportProtocolJSONRPC, version: card.V1, op: "send",
			ctx: 20 * time.Second, want: wire.AgentError, contains: "answer body over the 16777216-byte limit"},
		{name: "endless v0.3 HTTP+JSON answer", kind: lab.EndlessBody, binding: a2a.TransportProtocolHTTPJSON, version: card.V03, op: "send",
			ctx: 20 * time.Second, want: wire.AgentError, contains: "answer body over the 16777216-byte limit"},
		{name: "trickled headers, attempt timeout", kind: lab.TrickleHeaders, binding: a2a.TransportProtocolJSONRPC, version: card.V1, op: "send",
			attempt: budget, ctx: 20 * time.Second, want: wire.Ambiguous, contains: "deadline"},
		{name: "trickled body, call deadline", kind: lab.TrickleBody, binding: a2a.TransportProtocolJSONRPC, version: card.V1, op: "get",
			ctx: budget, want: wire.Ambiguous, contains: "deadline"},
		{name: "trickled body, attempt timeout", kind: lab.TrickleBody, binding: a2a.TransportProtocolHTTPJSON, version: card.V1, op: "send",
			attempt: budget, ctx: 20 * time.Second, want: wire.Ambiguous, contains: "deadline"},
		{name: "hanging gRPC, attempt timeout", kind: lab.HangingGRPC, binding: a2a.TransportProtocolGRPC, version: card.V1, op: "send",
			attempt: budget, ctx: 20 * time.Second, want: wire.Ambiguous, contains: "deadline"},
		{name: "hanging gRPC, call deadline", kind: lab.HangingGRPC, binding: a2a.TransportProtocolGRPC, version: card.V03, op: "get",
			ctx: budget, want: wire.Ambiguous, contains: "deadline"},
	}
	// One JSON decoder (a2a-go's 1.0 transports) and one io.ReadAll (its v0.3 HTTP+JSON
	// transport) read the endless answers: the bound is under both, in the HTTP transport.
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The time-bound cases run in parallel; those measuring memory run alone.
			measure := tc.kind == lab.EndlessBody || tc.kind == lab.GiantEvent
			if !measure {
				t.Parallel()
			}
			p := startHostile(t, tc.kind)
			var opts []Option
			if tc.attempt > 0 {
				opts = append(opts, WithAttemptTimeout(tc.attempt))
			}
			c := hostileClient(t, p, tc.binding, tc.version, opts...)
			ctx, cancel := context.WithTimeout(t.Context(), tc.ctx)
			defer cancel()
			var err error
			start := time.Now()
			alloc := allocated(func() {
				if tc.op == "send" {
					_, err = c.SendMessage(ctx, userMessage("hi"))
				} else {
					_, err = c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"})
				}
			})
			elapsed := time.Since(start)
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("%s error = %v, want a *Error", tc.op, err)
			}
			if last, _ := de.Last(); last.Outcome != tc.want || !strings.Contains(strings.ToLower(last.Detail), tc.contains) {
				t.Errorf("%s last attempt = %s (%s), want %s containing %q", tc.op, last.Outcome, last.Detail, tc.want, tc.contains)
			}
			switch {
			case tc.want == wire.AgentError && !errors.Is(err, ErrAgent):
				t.Errorf("%s error = %v, want ErrAgent (the call stops)", tc.op, err)
			case tc.want == wire.Ambiguous && tc.op == "send" && !errors.Is(err, ErrAmbiguous):
				t.Errorf("SendMessage error = %v, want ErrAmbiguous (never resent)", err)
			}
			if limit := timeBound(tc.ctx, tc.attempt) + boundMargin; elapsed > limit {
				t.Errorf("%s returned after %s, want at most %s", tc.op, elapsed, limit)
			}
			if measure {
				t.Logf("allocated %d MiB in %s", alloc>>20, elapsed)
			}
			// Reading MaxAnswerBytes costs about 4 times as much in copies as buffers grow;
			// an unbounded reader would take the peer's whole HostileMaxBytes (256 MiB).
			if measure && alloc > 8*MaxAnswerBytes {
				t.Errorf("%s allocated %d MiB, want under %d MiB", tc.op, alloc>>20, 8*MaxAnswerBytes>>20)
			}
		})
	}
}

// TestHostileStreams: an SSE stream that never sends an event, one that never ends
// after its first event, and one whose first event never ends are bounded by the
// attempt timeout, the call's context and a2a-go's 10 MiB per event.
func TestHostileStreams(t *testing.T) {
	const budget = 300 * time.Millisecond
	tests := []struct {
		name       string
		kind       lab.Hostile
		attempt    time.Duration
		ctx        time.Duration
		wantEvents int
		is         error
		contains   string
	}{
		{name: "keep-alives only, attempt timeout", kind: lab.EndlessKeepAlive, attempt: budget, ctx: 20 * time.Second,
			is: ErrAmbiguous, contains: "deadline"},
		{name: "keep-alives only, call deadline", kind: lab.EndlessKeepAlive, ctx: budget,
			is: ErrAmbiguous, contains: "deadline"},
		// The attempt timeout bounds only the wait for the first event; the call's context
		// ends the stream after it.
		{name: "endless after the first event", kind: lab.EndlessAfterEvent, attempt: time.Second, ctx: 1500 * time.Millisecond, wantEvents: 1,
			is: ErrStreamBroken, contains: "after 1 events"},
		{name: "giant first event", kind: lab.GiantEvent, ctx: 20 * time.Second,
			is: ErrAgent, contains: "token too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The time-bound cases run in parallel; those measuring memory run alone.
			measure := tc.kind == lab.EndlessBody || tc.kind == lab.GiantEvent
			if !measure {
				t.Parallel()
			}
			p := startHostile(t, tc.kind)
			var opts []Option
			if tc.attempt > 0 {
				opts = append(opts, WithAttemptTimeout(tc.attempt))
			}
			c := hostileClient(t, p, a2a.TransportProtocolJSONRPC, card.V1, opts...)
			ctx, cancel := context.WithTimeout(t.Context(), tc.ctx)
			defer cancel()
			var (
				events int
				err    error
			)
			start := time.Now()
			alloc := allocated(func() {
				for ev, serr := range c.SendStreamingMessage(ctx, userMessage("hi")) {
					if serr != nil {
						err = serr
						break
					}
					if ev != nil {
						events++
					}
				}
			})
			elapsed := time.Since(start)
			if events != tc.wantEvents {
				t.Errorf("events = %d, want %d", events, tc.wantEvents)
			}
			if !errors.Is(err, tc.is) || !strings.Contains(strings.ToLower(err.Error()), tc.contains) {
				t.Errorf("stream error = %v, want errors.Is %v containing %q", err, tc.is, tc.contains)
			}
			if limit := timeBound(tc.ctx, tc.attempt) + boundMargin; elapsed > limit {
				t.Errorf("stream ended after %s, want at most %s", elapsed, limit)
			}
			// a2a-go's scanner grows to 10 MiB for one line; an unbounded one would take 256 MiB.
			if measure {
				t.Logf("allocated %d MiB in %s", alloc>>20, elapsed)
			}
			if measure && alloc > 64<<20 {
				t.Errorf("stream allocated %d MiB, want under 64 MiB", alloc>>20)
			}
		})
	}
}
