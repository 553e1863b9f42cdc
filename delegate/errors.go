package delegate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// Sentinel errors; every *Error wraps exactly one of them (errors.Is).
var (
	// ErrNoCandidates: the card declares no interface this client can call (unsupported
	// bindings or versions, unusable URLs, or everything excluded by WithBindings).
	ErrNoCandidates = errors.New("no usable interface declared")
	// ErrExhausted: every candidate failed in a way proving the request never reached an
	// A2A handler.
	ErrExhausted = errors.New("no declared interface answered")
	// ErrAuth: an interface refused the credentials (HTTP 401/403, gRPC UNAUTHENTICATED /
	// PERMISSION_DENIED); the same credentials would fail on every interface.
	ErrAuth = errors.New("authentication or authorisation refused")
	// ErrAgent: an A2A handler answered with an A2A error (task not found, invalid
	// params, ...). The a2a-go sentinel (a2a.ErrTaskNotFound, ...) is wrapped too.
	ErrAgent = errors.New("the agent answered with an error")
	// ErrAmbiguous: the request may have reached a handler (timeout or reset after it
	// was sent, 5xx); a message is not resent unless WithResendSameMessageID allows it.
	ErrAmbiguous = errors.New("the request may have reached the agent")
	// ErrStreamBroken: a stream failed after its first event; streams never fall back then.
	ErrStreamBroken = errors.New("stream failed after its first event")
)

// Attempt is one call on one interface.
type Attempt struct {
	// Interface is the declared interface that was called.
	Interface card.Interface
	// Outcome is what the attempt proved (probe's taxonomy): Served for the attempt that
	// answered, AgentError when a handler answered with an A2A error.
	Outcome wire.Outcome
	// Detail is a one-line reason.
	Detail string
	// Latency is how long the attempt took (until the first event for a stream).
	Latency time.Duration
	// Evidence is what was seen on the wire: HTTP status and content type, gRPC code and
	// message, JSON-RPC code, whether the request was fully sent, the transport error.
	Evidence wire.Evidence
	// PlaintextServed reports, for a gRPC attempt over TLS at a bare host:port that is
	// not a loopback address, that a lookup found plaintext gRPC served there: a message
	// goes there only with WithPlaintextGRPC (--grpc-plaintext).
	PlaintextServed bool
	// Served is what a lookup found served at the interface's URL instead of what it
	// declares (binding and protocol version), when it found one: an interface the
	// caller may name explicitly (WithInterfaces, send --use).
	Served *card.Interface
	// AttemptTimedOut reports that the attempt's own bound (WithAttemptTimeout) ended
	// it, not the call's context: hints name the bound that fired.
	AttemptTimedOut bool
}

// String renders the attempt as one line.
func (a Attempt) String() string {
	s := fmt.Sprintf("%s: %s", a.Interface, a.Outcome)
	if a.Detail != "" {
		s += " (" + a.Detail + ")"
	}
	return s + " in " + a.Latency.Round(time.Microsecond).String()
}

// Error is a failed delegation. It carries every attempt made, wraps one of the
// package's sentinels and the underlying call error (errors.Is / errors.As see both).
type Error struct {
	// Op is the A2A operation, e.g. "SendMessage".
	Op string
	// Agent names the agent (card name, or where the card came from).
	Agent string
	// Kind is the sentinel saying why delegation stopped (ErrAuth, ErrExhausted, ...).
	Kind error
	// Attempts are the attempts in order; empty when there was no candidate.
	Attempts []Attempt
	// SecuritySchemes are the security schemes the card declares (named for ErrAuth).
	SecuritySchemes []string
	// Err is the underlying error of the last attempt (or the context's error).
	Err error
	// Note is an extra explanation (for example why candidates were skipped).
	Note string
}

// Error renders the failure with its attempt trace.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "delegate %s to %s: %v", e.Op, e.Agent, e.Kind)
	if e.Note != "" {
		b.WriteString(": " + e.Note)
	}
	if errors.Is(e.Kind, ErrAuth) {
		if len(e.SecuritySchemes) > 0 {
			fmt.Fprintf(&b, " (the card declares security schemes: %s)", strings.Join(e.SecuritySchemes, ", "))
		} else {
			b.WriteString(" (the card declares no security scheme)")
		}
	}
	if e.Err != nil && len(e.Attempts) == 0 {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	for i, a := range e.Attempts {
		fmt.Fprintf(&b, "\n  attempt %d: %s", i+1, a)
	}
	return b.String()
}

// Unwrap returns the sentinel and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Last returns the last attempt, if any.
func (e *Error) Last() (Attempt, bool) {
	if len(e.Attempts) == 0 {
		return Attempt{}, false
	}
	return e.Attempts[len(e.Attempts)-1], true
}

// HTTPStatus is the HTTP status of the last attempt's answer, 0 if none.
func (e *Error) HTTPStatus() int {
	a, _ := e.Last()
	return a.Evidence.HTTPStatus
}

// GRPCCode is the gRPC status of the last attempt; ok is false if it was not gRPC.
func (e *Error) GRPCCode() (code codes.Code, ok bool) {
	a, _ := e.Last()
	return a.Evidence.GRPCCode, a.Evidence.GRPC
}

// Trace collects the attempts of the calls made with a context from WithTrace, for
// successful calls as well as failed ones. It is safe for concurrent use.
type Trace struct {
	mu       sync.Mutex
	attempts []Attempt
}

// Attempts returns a copy of the attempts recorded so far, in order.
func (t *Trace) Attempts() []Attempt {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Attempt(nil), t.attempts...)
}

func (t *Trace) add(a Attempt) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.attempts = append(t.attempts, a)
	t.mu.Unlock()
}

type traceKey struct{}

// WithTrace returns a context whose calls record their attempts in t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

func traceFrom(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}
