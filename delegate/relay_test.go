package delegate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// afterHandling is one way an agent runs a message and then answers what could also
// mean "not here" (issue 18): a relayed A2A error, or a status written after the
// handler ran.
type afterHandling struct {
	name  string
	opts  []lab.Option // on top of the three bindings and the counting executor
	relay error        // the A2A error the executor relays after the work; nil: Echo
}

// afterHandlingCases are the relay and after-status agents of one binding.
func afterHandlingCases(b a2a.TransportProtocol) []afterHandling {
	var cases []afterHandling
	for _, e := range []error{a2a.ErrVersionNotSupported, a2a.ErrMethodNotFound, a2a.ErrUnsupportedContentType, a2a.ErrParseError} {
		cases = append(cases, afterHandling{name: "relays " + a2a.ErrorReason(e), relay: e})
	}
	if b == lab.GRPC {
		return append(cases, afterHandling{name: "UNIMPLEMENTED after running",
			opts: []lab.Option{lab.WithGRPCServerOptions(lab.GRPCStatusAfterMessage(codes.Unimplemented, "method not implemented")...)}})
	}
	for _, code := range []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnsupportedMediaType,
		http.StatusNotImplemented, http.StatusFound, http.StatusRequestTimeout} {
		cases = append(cases, afterHandling{name: fmt.Sprintf("HTTP %d after running", code),
			opts: []lab.Option{lab.WithHTTPMiddleware(lab.StatusAfterMessage(code))}})
	}
	return cases
}

// TestRelayedErrorsRunOnce (issue 18 item 7): an agent that executes a message and then
// relays a downstream A2A error, or answers a status a handler could also produce,
// on each binding, unary and streaming. The answer is confirmed with a GetTask lookup
// on the same interface, which the handler answers (TaskNotFound): the attempt is
// ambiguous and the message is not sent to the card's second interface, on the same
// agent. Exactly one execution is counted server-side.
func TestRelayedErrorsRunOnce(t *testing.T) {
	eachRelay(t, afterHandlingCases, func(t *testing.T, b a2a.TransportProtocol, tc afterHandling, counter *lab.Counter, streaming bool) {
		ctx := testContext(t)
		a := labtest.Start(t, append([]lab.Option{
			lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST), lab.WithGRPC(lab.GRPCV1),
			lab.WithExecutor(counter),
			lab.WithCard(func(a *lab.Agent) any {
				decl := map[a2a.TransportProtocol]lab.Decl{
					lab.JSONRPC:  {URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1},
					lab.HTTPJSON: {URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, Version: card.V1},
					lab.GRPC:     {URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
				}
				second := lab.GRPC
				if b == lab.GRPC {
					second = lab.JSONRPC
				}
				return lab.V1Card("runs-then-refuses", decl[b], decl[second])
			})}, tc.opts...)...)
		c := newTestClient(t, ctx, a.BaseURL, WithPlaintextGRPC())
		err := sendRelayed(ctx, c, streaming)
		if got := counter.Executions(); got != 1 {
			t.Errorf("the agent ran the message %d times, want exactly 1 (error %v)", got, err)
		}
		// An error that does not read as "not here" (PARSE_ERROR over gRPC and
		// HTTP+JSON carries no code of its own there) is the agent's answer.
		var de *Error
		if !errors.As(err, &de) || !errors.Is(err, ErrAmbiguous) && !errors.Is(err, ErrAgent) {
			t.Fatalf("error = %v, want a *Error wrapping ErrAmbiguous or ErrAgent", err)
		}
		if len(de.Attempts) != 1 {
			t.Fatalf("attempts = %v, want one", de.Attempts)
		}
		if o := de.Attempts[0].Outcome; o != wire.Ambiguous && o != wire.AgentError || (o == wire.Ambiguous) != errors.Is(err, ErrAmbiguous) {
			t.Errorf("attempt %v with error kind %v, want ambiguous (ErrAmbiguous) or agent_error (ErrAgent)", de.Attempts[0], de.Kind)
		}
	})
}

// eachRelay runs f as a subtest per binding, case of cases(binding) and mode (unary,
// streaming), with a Counter over the Relay executor of the case's error (Echo if nil).
func eachRelay(t *testing.T, cases func(a2a.TransportProtocol) []afterHandling,
	f func(t *testing.T, b a2a.TransportProtocol, tc afterHandling, counter *lab.Counter, streaming bool)) {
	for _, b := range []a2a.TransportProtocol{lab.JSONRPC, lab.GRPC, lab.HTTPJSON} {
		for _, tc := range cases(b) {
			for _, streaming := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s", b, tc.name)
				if streaming {
					name += "/stream"
				}
				t.Run(name, func(t *testing.T) {
					counter := &lab.Counter{}
					if tc.relay != nil {
						counter.Next = lab.Relay{Err: tc.relay}
					}
					f(t, b, tc, counter, streaming)
				})
			}
		}
	}
}

// sendRelayed sends one message, streaming or not, and returns the call's error.
func sendRelayed(ctx context.Context, c *Client, streaming bool) error {
	if !streaming {
		_, err := c.SendMessage(ctx, userMessage("run once"))
		return err
	}
	for _, err := range c.SendStreamingMessage(ctx, userMessage("run once")) {
		if err != nil {
			return err
		}
	}
	return nil
}

// relaysEverythingCases are the relays of issue 43 item 1: every A2A error that needs
// confirmation, and every HTTP status (with gRPC's UNIMPLEMENTED on the gRPC listener)
// a handler could write after running the message.
func relaysEverythingCases(a2a.TransportProtocol) []afterHandling {
	var cases []afterHandling
	for _, e := range []error{a2a.ErrVersionNotSupported, a2a.ErrMethodNotFound, a2a.ErrUnsupportedContentType, a2a.ErrParseError} {
		cases = append(cases, afterHandling{name: "relays " + a2a.ErrorReason(e), relay: e, opts: []lab.Option{lab.RelayEveryCall(e)}})
	}
	for _, code := range []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnsupportedMediaType,
		http.StatusNotImplemented, http.StatusFound, http.StatusRequestTimeout} {
		cases = append(cases, afterHandling{name: fmt.Sprintf("HTTP %d and UNIMPLEMENTED", code), opts: []lab.Option{
			lab.WithHTTPMiddleware(lab.StatusAfterCall(code)),
			lab.WithGRPCServerOptions(lab.GRPCStatusAfterCall(codes.Unimplemented, "method not implemented")...)}})
	}
	return cases
}

// TestRelayEverywhereRunsOnce (issue 43 item 1): an agent that runs a message and then
// relays a downstream's refusal, and relays the same refusal to every other call, the
// confirming lookups included, on every binding and version. Its card declares four
// interfaces, all at that agent: the message binding's 1.0 and 0.3 interfaces first,
// then the other two bindings. The lookup on the first interface gets the same answer
// as the message, and so does the lookup on the next one: no interface shows a
// different working handler, so the message is never sent a second time (it was run
// once per interface, four times, before). Unary and streaming; exactly one execution
// is counted at the agent.
func TestRelayEverywhereRunsOnce(t *testing.T) {
	eachRelay(t, relaysEverythingCases, func(t *testing.T, b a2a.TransportProtocol, tc afterHandling, counter *lab.Counter, streaming bool) {
		ctx := testContext(t)
		a := labtest.Start(t, append([]lab.Option{
			lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
			lab.WithJSONRPC(card.V03, lab.PathJSONRPCV03), lab.WithREST(card.V03, lab.PathRESTV03),
			lab.WithGRPC(lab.GRPCBoth), lab.WithExecutor(counter),
			lab.WithCard(func(a *lab.Agent) any { return lab.V1Card("relays-everything", everyInterfaceAt(a, b)...) }),
		}, tc.opts...)...)
		c := newTestClient(t, ctx, a.BaseURL, WithPlaintextGRPC())
		var tr Trace
		err := sendRelayed(WithTrace(ctx, &tr), c, streaming)
		if got := counter.Executions(); got != 1 {
			t.Errorf("the agent ran the message %d times, want exactly 1 (attempts %v, error %v)", got, tr.Attempts(), err)
		}
		if !errors.Is(err, ErrAmbiguous) && !errors.Is(err, ErrAgent) {
			t.Errorf("error = %v, want ErrAmbiguous or ErrAgent: the message may have run", err)
		}
	})
}

// everyInterfaceAt declares four interfaces of agent a: binding b in 1.0 and 0.3, then
// the other two bindings in 1.0.
func everyInterfaceAt(a *lab.Agent, b a2a.TransportProtocol) []lab.Decl {
	at := map[a2a.TransportProtocol][2]string{
		lab.JSONRPC:  {a.URL(lab.PathJSONRPC), a.URL(lab.PathJSONRPCV03)},
		lab.HTTPJSON: {a.URL(lab.PathREST), a.URL(lab.PathRESTV03)},
		lab.GRPC:     {a.GRPCAddr, a.GRPCAddr},
	}
	decls := []lab.Decl{{URL: at[b][0], Binding: b, Version: card.V1}, {URL: at[b][1], Binding: b, Version: card.V03}}
	for _, o := range []a2a.TransportProtocol{lab.JSONRPC, lab.GRPC, lab.HTTPJSON} {
		if o != b {
			decls = append(decls, lab.Decl{URL: at[o][0], Binding: o, Version: card.V1})
		}
	}
	return decls
}

// TestCallEvidenceHasFraming: the delegate reads its answers with wire's one reader, so
// a call's evidence says whose framing the answer has (it used to be left empty, and
// Classify's framing rule never ran for calls): a JSON-RPC message posted to an
// HTTP+JSON route, then the lab agent's own JSON-RPC interface.
func TestCallEvidenceHasFraming(t *testing.T) {
	ctx := testContext(t)
	counter := &lab.Counter{}
	a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST), lab.WithExecutor(counter),
		lab.WithCard(func(a *lab.Agent) any {
			return lab.V1Card("framing",
				lab.Decl{URL: a.URL(lab.PathREST) + "/message:send", Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
		}))
	c := newTestClient(t, ctx, a.BaseURL)
	var tr Trace
	_, err := c.SendMessage(WithTrace(ctx, &tr), userMessage("framed"))
	at := tr.Attempts()
	if len(at) == 0 {
		t.Fatalf("no attempts (error %v)", err)
	}
	if ev := at[0].Evidence; ev.Framing != lab.HTTPJSON {
		t.Errorf("first attempt %v: framing %q, want %q (evidence %+v)", at[0], ev.Framing, lab.HTTPJSON, ev)
	}
	if got := counter.Executions(); got > 1 {
		t.Errorf("the agent ran the message %d times", got)
	}
}
