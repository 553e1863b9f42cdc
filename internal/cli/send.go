package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2abind/a2abind/wire"
)

func init() { register(newCmdSend) }

// sendOutput is the `send -o json` document; its field names are a stable contract.
type sendOutput struct {
	OK       bool          `json:"ok"`
	Attempts []sendAttempt `json:"attempts"`
	Result   any           `json:"result,omitempty"`
	Error    string        `json:"error,omitempty"`
}

type sendAttempt struct {
	URL             string                `json:"url"`
	Binding         a2a.TransportProtocol `json:"binding"`
	ProtocolVersion string                `json:"protocolVersion"`
	Outcome         wire.Outcome          `json:"outcome"`
	Detail          string                `json:"detail"`
	LatencyMs       float64               `json:"latencyMs"`
	// Undeclared marks an interface given with --use, which the card does not declare.
	Undeclared bool `json:"undeclared,omitempty"`
}

// sendOptions are the options of `a2abind send`, from its flags and arguments;
// newCmdSend fills them, sendRun acts on them.
type sendOptions struct {
	g              *globals
	Target, Text   string // the arguments
	use            []string
	stream         bool
	verbose        bool
	bindings       []string
	conn           connFlags
	plaintextGRPC  bool
	resend         bool
	attemptTimeout time.Duration
	noCache        bool
	cacheDir       string
	sig            signatureFlags
}

// newCmdSend builds the send command; runF, when not nil, replaces sendRun.
func newCmdSend(g *globals, runF func(*sendOptions) error) *cobra.Command {
	f := &sendOptions{g: g}
	cmd := &cobra.Command{
		Use:   "send TARGET TEXT",
		Short: "Delegate a message to an agent, falling back safely across its declared interfaces",
		Long: `Send loads an AgentCard and sends TEXT as a user message (A2A SendMessage, or
SendStreamingMessage with --stream), trying the declared interfaces in the card's order:
for a v1.0 card supportedInterfaces in order; for a v0.3 card preferredTransport selects
among the declared interfaces (it is never assumed to be served at url unless declared
there), then the rest.

It moves to the next interface only when the failure proves the request never reached
an A2A handler (refused, unreachable, TLS mismatch, wrong binding, route not found,
handler missing, version mismatch). It stops on 401/403, UNAUTHENTICATED or
PERMISSION_DENIED (naming the security schemes the card declares) and on an A2A error
from the agent. After an ambiguous failure (timeout or reset after the message was sent,
5xx) the message is not resent, unless --resend allows resending the same messageId.
A stream falls back only before its first event.

What probe calls served, send can use: v0.3 HTTP+JSON routes under {url}/v1
(as @a2a-js/sdk 0.3 serves them) and plaintext gRPC at a bare loopback
host:port are found by a side-effect-free lookup before the first message.
Off loopback a bare host:port gets TLS unless --grpc-plaintext says so; when
plaintext is served there, the hint says so.

The interface that answered, and how (route, TLS or plaintext), is remembered
across runs, on disk under the user cache directory (--cache-dir to choose
another, --no-cache for none), per card URL and card version/ETag, for 10
minutes; an interface that failed is tried last for 30 seconds. A run restricted
with --binding is remembered apart, so forcing a binding once changes no later
unrestricted run. So a
misdeclared card costs one failed attempt, not one per run.

Credentials given with --header go only to interfaces on the card's own origin (the
scheme, host and port of TARGET as given, before any redirect; for a card file, its
preferred interface's), and to the hosts named with --credential-host. Calls never
follow a redirect: a 3xx answer is an outcome naming where it pointed, and nothing is
sent there.

` + addressHelp + `

TARGET is an agent base URL (the card is fetched from /.well-known/agent-card.json),
the URL of a card document, or a card file. --timeout bounds the whole command.

--use BINDING@VERSION=URL calls an interface the card does not declare, before the
declared ones: one a probe found served (a2a-go's "a2a serve --protocol 0.3" publishes
1.0 and serves 0.3). It is checked as a declared one is (address, dial policy,
credential scope) and named in the output as not declared by the card.

Output: the agent's answer (task state and text, or the message text); -v adds every
attempt with its outcome on standard error. -o json prints
{"ok", "attempts": [{"url", "binding", "protocolVersion", "outcome", "detail",
"latencyMs", "undeclared"?}], "result"?, "error"?}; "undeclared" is true for a --use
interface; "result" is the A2A answer ({"task": ...} or {"message": ...}), or with
--stream a summary, {"events": N, "state"?, "last"?}: the count of events, the last task
state they carried and the last event (the events themselves are printed only in text
mode, as they arrive: a stream may not end).

Exit status: 0 when the agent answered, 1 when delegation failed, 2 when the card
cannot be obtained or used, or the command line is wrong.`,
		Example: `  # the seed incident's agent: one failed attempt, then JSON-RPC answers
  a2abind send http://127.0.0.1:8443 "summarise the incident" -v

  # with a token, streaming the events
  a2abind send https://agent.example.com "hello" --stream \
    -H "Authorization: Bearer $TOKEN"

  # only gRPC, machine-readable, bounded
  a2abind send ./card.json "ping" --binding GRPC -o json --timeout 5s

  # an interface the card does not declare, proved by probe
  a2abind send http://127.0.0.1:8080 "hi" --use rest@0.3=http://127.0.0.1:8080`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return argsError("send", "TARGET and TEXT", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f.Target, f.Text = args[0], args[1]
			if runF != nil {
				return runF(f)
			}
			return sendRun(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.stream, "stream", false, "use SendStreamingMessage and print the events as they arrive")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print every attempt (interface, outcome, latency) on standard error")
	fl.StringArrayVar(&f.bindings, "binding", nil, "only use this binding: "+bindingNames+" (repeatable; the order given is the order tried)")
	fl.StringArrayVar(&f.use, "use", nil, "also call this interface the card does not declare, first: BINDING@VERSION=URL, e.g. JSONRPC@0.3=http://127.0.0.1:8080/ (repeatable)")
	f.conn.register(fl, `header for the card fetch and every call, "Name: value" (repeatable); sent only to the card's origin`)
	fl.BoolVar(&f.plaintextGRPC, "grpc-plaintext", false, "speak plaintext gRPC to bare host:port interfaces (default: TLS, except on loopback, where a lookup decides, or when the card came over http://)")
	fl.BoolVar(&f.resend, "resend", false, "after an ambiguous failure, resend the same messageId to the next interface")
	fl.DurationVar(&f.attemptTimeout, "attempt-timeout", delegate.DefaultAttemptTimeout, "bound each attempt, so that a silent interface leaves time for the next")
	fl.BoolVar(&f.noCache, "no-cache", false, "do not read or write the on-disk memory of which interface answered")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "where to remember which interface answered, across runs (default: the user cache directory, $XDG_CACHE_HOME/a2abind/delegate)")
	f.sig.register(fl)
	return cmd
}

// delegateOptions are the delegate options the flags ask for.
func (f *sendOptions) delegateOptions() ([]delegate.Option, error) {
	conn, err := f.conn.conn(f.g, f.Target)
	if err != nil {
		return nil, err
	}
	opts := []delegate.Option{delegate.WithConn(conn)}
	for _, b := range f.bindings {
		cb, err := parseBinding(b)
		if err != nil {
			return nil, fmt.Errorf("--binding: %w", err)
		}
		opts = append(opts, delegate.WithBindings(cb))
	}
	for _, u := range f.use {
		iface, err := parseUse(u)
		if err != nil {
			return nil, err
		}
		opts = append(opts, delegate.WithInterfaces(iface))
	}
	if f.plaintextGRPC {
		opts = append(opts, delegate.WithPlaintextGRPC())
	}
	if f.resend {
		opts = append(opts, delegate.WithResendSameMessageID())
	}
	if f.attemptTimeout > 0 {
		opts = append(opts, delegate.WithAttemptTimeout(f.attemptTimeout))
	}
	if f.noCache && f.cacheDir != "" {
		return nil, fmt.Errorf("--no-cache and --cache-dir exclude each other")
	}
	if !f.noCache {
		dir := f.cacheDir
		if dir == "" {
			dir, _ = delegate.DefaultCacheDir() // no user cache directory: remember within this run only
		}
		if dir != "" {
			opts = append(opts, delegate.WithCache(delegate.NewCache(delegate.WithCacheSize(8), delegate.WithCacheDir(dir))))
		}
	}
	if f.sig.asked() {
		if !f.sig.require {
			return nil, errors.New("--jwks and --jku-origin need --require-signature (send refuses a card whose signature does not verify)")
		}
		vopts, err := f.sig.options(context.Background()) // a JWKS URL is fetched before the card, bounded by its own 10 s
		if err != nil {
			return nil, err
		}
		opts = append(opts, delegate.WithCardVerifier(delegate.RequireSignature(vopts...)))
	}
	return opts, nil
}

// sendRun delegates the message and prints the answer (or the failure), under the
// run's root span (spanSend: the card fetch and the delegate's call are its children).
func sendRun(parent context.Context, f *sendOptions) (err error) {
	g, target, text := f.g, f.Target, f.Text
	opts, err := f.delegateOptions()
	if err != nil {
		return fail(ExitUsage, err)
	}
	ctx, cancel := g.context(parent)
	defer cancel()
	ctx, span := telemetry.Start(ctx, spanSend, trace.SpanKindInternal)
	defer func() { endSpan(span, err) }()

	hc := hintContext{command: "send", target: target, headers: len(f.conn.Headers) > 0, tlsFlags: true}
	client, err := delegate.New(ctx, target, opts...)
	if err != nil {
		// exit 2 also when the card was refused (--require-signature): it cannot be used
		return sendFailed(g, nil, nil, ExitUsage, withHint(err, hc))
	}
	defer client.Close()

	var tr delegate.Trace
	ctx = delegate.WithTrace(ctx, &tr)
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}

	if !f.stream {
		res, err := client.SendMessage(ctx, req)
		if f.verbose {
			writeAttempts(g.stderr, tr.Attempts())
		}
		if err != nil {
			return sendFailed(g, tr.Attempts(), nil, ExitFailed, withHint(err, hc))
		}
		if g.json() {
			return jsonOrUsage(g, sendOutput{OK: true, Attempts: sendAttempts(tr.Attempts()), Result: a2a.StreamResponse{Event: res}})
		}
		writeAnswer(g.stdout, res)
		return nil
	}

	var sum streamSummary
	for ev, err := range client.SendStreamingMessage(ctx, req) {
		if err != nil {
			if f.verbose {
				writeAttempts(g.stderr, tr.Attempts())
			}
			return sendFailed(g, tr.Attempts(), sum.result(), ExitFailed, withHint(err, hc))
		}
		if f.verbose && sum.Events == 0 {
			writeAttempts(g.stderr, tr.Attempts())
		}
		sum.add(ev)
		if !g.json() {
			writeEvent(g.stdout, ev)
		}
	}
	if f.verbose && sum.Events == 0 {
		writeAttempts(g.stderr, tr.Attempts())
	}
	if g.json() {
		return jsonOrUsage(g, sendOutput{OK: true, Attempts: sendAttempts(tr.Attempts()), Result: &sum})
	}
	return nil
}

// streamSummary is the "result" of `send --stream -o json`: how many events arrived,
// the last task state they carried and the last event, never the list of events (a
// stream may not end, and memory stays bounded whatever its length).
type streamSummary struct {
	Events int                 `json:"events"`
	State  a2a.TaskState       `json:"state,omitempty"`
	Last   *a2a.StreamResponse `json:"last,omitempty"`
}

// add counts ev and keeps it as the last event.
func (s *streamSummary) add(ev a2a.Event) {
	s.Events++
	s.Last = &a2a.StreamResponse{Event: ev}
	switch v := ev.(type) {
	case *a2a.Task:
		s.State = v.Status.State
	case *a2a.TaskStatusUpdateEvent:
		s.State = v.Status.State
	}
}

// result is the summary as a "result", nil before the first event.
func (s *streamSummary) result() any {
	if s.Events == 0 {
		return nil
	}
	return s
}

// sendFailed reports a failed send with code; in JSON mode the document carries the
// attempts and, for a broken stream, the summary of the events received (result, nil
// when there is none).
func sendFailed(g *globals, attempts []delegate.Attempt, result any, code int, err error) error {
	var de *delegate.Error
	if errors.As(err, &de) && errors.Is(err, delegate.ErrNoCandidates) {
		code = ExitUsage
	}
	if errors.Is(err, card.ErrUnavailable) || errors.Is(err, card.ErrMalformed) {
		code = ExitUsage
	}
	if !g.json() {
		return fail(code, err)
	}
	out := sendOutput{Attempts: sendAttempts(attempts), Error: firstLine(err.Error())}
	out.Result = result
	if werr := g.writeJSON(out); werr != nil {
		return fail(ExitUsage, werr)
	}
	return fail(code, nil)
}

func jsonOrUsage(g *globals, v any) error {
	if err := g.writeJSON(v); err != nil {
		return fail(ExitUsage, err)
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func sendAttempts(attempts []delegate.Attempt) []sendAttempt {
	out := make([]sendAttempt, 0, len(attempts))
	for _, a := range attempts {
		out = append(out, sendAttempt{
			URL: a.Interface.URL, Binding: a.Interface.Binding, ProtocolVersion: a.Interface.ProtocolVersion,
			Outcome: a.Outcome, Detail: a.Detail, LatencyMs: millis(a.Latency), Undeclared: undeclared(a.Interface),
		})
	}
	return out
}

func writeAttempts(w io.Writer, attempts []delegate.Attempt) {
	st := newStyle(w)
	for i, a := range attempts {
		paint := st.bad
		if a.Outcome == wire.Served {
			paint = st.good
		}
		outcome := string(a.Outcome)
		iface := a.Interface.String()
		if undeclared(a.Interface) {
			iface += " (--use, not declared by the card)"
		}
		line := fmt.Sprintf("attempt %d: %s: %s (%s) %s", i+1, iface, outcome, a.Detail, latency(a.Latency))
		st.block(w, 0, line, func(l string) string {
			// colour the outcome where it stands on the first line
			if before, after, ok := strings.Cut(l, ": "+outcome+" ("); ok && strings.HasPrefix(l, "attempt ") {
				return before + ": " + paint(outcome) + " (" + after
			}
			return l
		})
	}
}

// texts returns the text parts of parts.
func texts(parts []*a2a.Part) []string {
	var out []string
	for _, p := range parts {
		if p == nil {
			continue
		}
		if t := p.Text(); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// writeAnswer prints a SendMessage result: a task's state and text, or a message's text.
func writeAnswer(w io.Writer, res a2a.SendMessageResult) {
	switch v := res.(type) {
	case *a2a.Task:
		fmt.Fprintf(w, "task %s: %s\n", wording.Escape(string(v.ID)), wording.Escape(stateName(v.Status.State)))
		if v.Status.Message != nil {
			for _, t := range texts(v.Status.Message.Parts) {
				writeText(w, t)
			}
		}
		for _, art := range v.Artifacts {
			if art == nil {
				continue
			}
			for _, t := range texts(art.Parts) {
				writeText(w, t)
			}
		}
	case *a2a.Message:
		for _, t := range texts(v.Parts) {
			writeText(w, t)
		}
	}
}

// writeEvent prints one stream event as a line or two.
func writeEvent(w io.Writer, ev a2a.Event) {
	switch v := ev.(type) {
	case *a2a.Task, *a2a.Message:
		writeAnswer(w, v.(a2a.SendMessageResult))
	case *a2a.TaskStatusUpdateEvent:
		fmt.Fprintf(w, "status: %s\n", wording.Escape(stateName(v.Status.State)))
		if v.Status.Message != nil {
			for _, t := range texts(v.Status.Message.Parts) {
				writeText(w, t)
			}
		}
	case *a2a.TaskArtifactUpdateEvent:
		if v.Artifact != nil {
			for _, t := range texts(v.Artifact.Parts) {
				writeText(w, "artifact: "+t)
			}
		}
	}
}

// writeText prints an agent's text as it wrote it, line by line, each line escaped: the
// agent's own line breaks stay, its control characters do not reach the terminal.
func writeText(w io.Writer, text string) {
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		l = strings.ReplaceAll(strings.TrimSuffix(l, "\r"), "\t", "    ")
		fmt.Fprintln(w, wording.Escape(l))
	}
}

// stateName prints TASK_STATE_COMPLETED as "completed".
func stateName(s a2a.TaskState) string {
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}
