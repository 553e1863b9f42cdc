package delegate

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// failing is an executor that runs (Counter counts it) and then fails with an error
// whose text imitates a network failure, as a tool call of the agent's would.
type failing struct{ text string }

func (f failing) Execute(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { yield(nil, errors.New(f.text)) }
}

func (f failing) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return lab.Echo{}.Cancel(ctx, ec)
}

// executorTexts are executor errors that read like connection failures.
var executorTexts = []string{
	"tool call failed: dial tcp 10.0.0.5:5432: connect: connection refused",
	"tool call failed: dial tcp: lookup db.internal on 10.0.0.2:53: no such host",
	"tool call failed: tls: failed to verify certificate: x509: certificate signed by unknown authority",
	"tool call failed: dial tcp 10.0.0.5:443: connect: no route to host",
}

// TestExecutorErrorTextIsNotAConnectionFailure reproduces hole 2(a): the agent runs the
// message over gRPC and fails with an error whose text imitates a network failure.
// a2a-go answers a gRPC status with that text; it came from the server, so it is never
// read as refused / unreachable / tls_mismatch: the message runs exactly once and the
// call stops ambiguous, unary and streaming.
func TestExecutorErrorTextIsNotAConnectionFailure(t *testing.T) {
	for _, text := range executorTexts {
		for _, streaming := range []bool{false, true} {
			name := text[len("tool call failed: "):]
			if streaming {
				name = "stream " + name
			}
			t.Run(name, func(t *testing.T) {
				ctx := testContext(t)
				counter := &lab.Counter{Next: failing{text}}
				a := labtest.Start(t,
					lab.WithJSONRPC(card.V1, lab.PathJSONRPC),
					lab.WithGRPC(lab.GRPCV1),
					lab.WithExecutor(counter),
					lab.WithCard(func(a *lab.Agent) any {
						return lab.V1Card("tool-failure",
							lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
							lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
					}))
				c := newTestClient(t, ctx, a.BaseURL, WithPlaintextGRPC())
				var err error
				if streaming {
					for _, serr := range c.SendStreamingMessage(ctx, userMessage("run the tool")) {
						if serr != nil {
							err = serr
							break
						}
					}
				} else {
					_, err = c.SendMessage(ctx, userMessage("run the tool"))
				}
				if got := counter.Executions(); got != 1 {
					t.Errorf("the agent ran the message %d times, want exactly 1 (error %v)", got, err)
				}
				var de *Error
				if !errors.As(err, &de) {
					t.Fatalf("error = %v, want a *Error", err)
				}
				if len(de.Attempts) != 1 || de.Attempts[0].Outcome != wire.Ambiguous || !errors.Is(err, ErrAmbiguous) {
					t.Errorf("error = %v, want one ambiguous attempt wrapping ErrAmbiguous", err)
				}
				if ev := de.Attempts[0].Evidence; !ev.Answered || !ev.GRPC {
					t.Errorf("evidence %+v, want a gRPC status answered by the server", ev)
				}
			})
		}
	}
}

// TestGarbledAnswerAfterExecuting reproduces hole 2(b): an agent reads and executes the
// message, then answers a malformed status line or raw HTTP/2 bytes. The request was
// fully written, and nothing proves it reached no handler: the message runs exactly
// once and the call stops ambiguous (it used to be malformed / wrong_binding and fall
// back to gRPC, running it twice). A read still falls back.
func TestGarbledAnswerAfterExecuting(t *testing.T) {
	for name, raw := range map[string]string{
		"malformed status line": "HTTP/1.1 2OO OK\r\nContent-Length: 0\r\n\r\n",
		"raw HTTP/2 bytes":      "\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64",
	} {
		t.Run(name, func(t *testing.T) {
			ctx := testContext(t)
			a, counter := droppingAgent(t, func(path string) func(http.Handler) http.Handler {
				return lab.RawAfterHandling(path, raw)
			})
			c := newTestClient(t, ctx, a.BaseURL, WithPlaintextGRPC())
			_, err := c.SendMessage(ctx, userMessage("once"))
			if got := counter.Executions(); got != 1 {
				t.Errorf("the agent ran the message %d times, want exactly 1 (error %v)", got, err)
			}
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, ErrAmbiguous) || len(de.Attempts) != 1 {
				t.Fatalf("SendMessage() error = %v, want one attempt wrapping ErrAmbiguous", err)
			}
			if at := de.Attempts[0]; at.Outcome != wire.Ambiguous || !at.Evidence.Sent {
				t.Errorf("attempt %v (sent %v), want ambiguous after a full write", at, at.Evidence.Sent)
			}
			var tr Trace
			if _, err := c.GetTask(WithTrace(ctx, &tr), &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Fatalf("GetTask() error = %v, want a2a.ErrTaskNotFound from gRPC", err)
			}
		})
	}
}

// TestPlainNotImplementedFallsBack (issue 12): a plain web server's 501 page proves that
// no A2A handler ran there, so even a message moves on to the next interface.
func TestPlainNotImplementedFallsBack(t *testing.T) {
	ctx := testContext(t)
	plain := labtest.NewAnswerer(t)
	plain.Set(http.StatusNotImplemented, "text/html", []byte("<html><body><h1>501 Not Implemented</h1></body></html>"))
	a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithCard(func(a *lab.Agent) any {
		return lab.V1Card("behind-a-plain-server",
			lab.Decl{URL: plain.URL + "/a2a", Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
	}))
	c := newTestClient(t, ctx, a.BaseURL)
	var tr Trace
	if _, err := c.SendMessage(WithTrace(ctx, &tr), userMessage("hi")); err != nil {
		t.Fatalf("SendMessage() error = %v, want the second interface's answer", err)
	}
	if got := outcomes(tr.Attempts()); len(got) != 2 || got[0] != wire.NotFound || got[1] != wire.Served {
		t.Errorf("attempts = %v, want [not_found served]", tr.Attempts())
	}
}
