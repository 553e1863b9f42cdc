package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
)

// Agents that run a message and then answer what could also mean "not here": an A2A
// error relayed from a downstream agent, or an HTTP status (gRPC status) written after
// the handler ran. A client that reads such an answer as proof that no handler ran
// sends the message again elsewhere: wrap the executor in a Counter to see it.

// Relay is an AgentExecutor that does the work and then fails with Err, as an agent
// that relays a downstream agent's A2A error does (a2a.ErrVersionNotSupported,
// a2a.ErrMethodNotFound, ...): a2a-go answers the error with its own code and
// ErrorInfo on every binding.
type Relay struct {
	// Err is the A2A error relayed (one of a2a's sentinels).
	Err error
}

var _ a2asrv.AgentExecutor = Relay{}

// Execute runs the message and relays Err.
func (r Relay) Execute(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(nil, a2a.NewError(r.Err, fmt.Sprintf("downstream agent: %v", r.Err)))
	}
}

// Cancel answers as Echo does.
func (r Relay) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return Echo{}.Cancel(ctx, ec)
}

// RelayEveryCall makes every call other than a message (GetTask, ListTasks, ...) relay
// err too, before a handler looks at it, as an agent that forwards every call to a
// downstream agent refusing them all does. With the Relay executor, a message runs and
// then relays err, and the confirming lookup gets the same err on every interface.
func RelayEveryCall(err error) Option {
	return WithHandlerOptions(a2asrv.WithCallInterceptors(relayCalls{err: err}))
}

// relayCalls is RelayEveryCall's interceptor.
type relayCalls struct {
	a2asrv.PassthroughCallInterceptor
	err error
}

// Before relays err for every call but a message.
func (r relayCalls) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if m := cc.Method(); m == "SendMessage" || m == "SendStreamingMessage" {
		return ctx, nil, nil
	}
	return ctx, nil, a2a.NewError(r.err, fmt.Sprintf("downstream agent: %v", r.err))
}

// maxPeek bounds how much of a request body StatusAfterMessage reads to find its method.
const maxPeek = 1 << 20

// StatusAfterMessage is middleware (for WithHTTPMiddleware) that lets every message
// request (JSON-RPC SendMessage, SendStreamingMessage, message/send, message/stream;
// HTTP+JSON POST .../message:send and :stream) run to completion (the agent executes
// it), throws the answer away and answers status instead, with a plain-text body (and
// a Location for a 3xx). Other requests, lookups included, pass through.
func StatusAfterMessage(code int) func(http.Handler) http.Handler { return statusAfter(code, false) }

// StatusAfterCall is StatusAfterMessage for every A2A request, lookups included (every
// request but the card's): a message runs, and every answer is status.
func StatusAfterCall(code int) func(http.Handler) http.Handler { return statusAfter(code, true) }

// statusAfter is StatusAfterMessage, and StatusAfterCall when every is set.
func statusAfter(code int, every bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if every && r.URL.Path == card.WellKnownPath || !every && !isMessage(r) {
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(&discardWriter{header: http.Header{}}, r)
			if code >= 300 && code < 400 {
				w.Header().Set("Location", "/elsewhere")
			}
			http.Error(w, http.StatusText(code), code)
		})
	}
}

// isMessage reports whether r sends a message; it leaves r's body readable.
func isMessage(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	if strings.HasSuffix(r.URL.Path, "/message:send") || strings.HasSuffix(r.URL.Path, "/message:stream") {
		return true
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil {
		return false
	}
	var req struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &req) != nil {
		return false
	}
	switch req.Method {
	case "SendMessage", "SendStreamingMessage", "message/send", "message/stream":
		return true
	}
	return false
}

// WithGRPCServerOptions adds options to the agent's gRPC server (interceptors, for
// example GRPCStatusAfterMessage).
func WithGRPCServerOptions(opts ...grpc.ServerOption) Option {
	return func(c *config) { c.grpcOpts = append(c.grpcOpts, opts...) }
}

// GRPCStatusAfterMessage returns gRPC server options whose interceptors let every
// message call (SendMessage, SendStreamingMessage) run to completion (the agent
// executes it; a stream's events are thrown away) and then answer code with msg and no
// ErrorInfo, as a handler may. Other calls pass through.
func GRPCStatusAfterMessage(code codes.Code, msg string) []grpc.ServerOption {
	return grpcStatusAfter(code, msg, false)
}

// GRPCStatusAfterCall is GRPCStatusAfterMessage for every call, lookups included.
func GRPCStatusAfterCall(code codes.Code, msg string) []grpc.ServerOption {
	return grpcStatusAfter(code, msg, true)
}

// grpcStatusAfter is GRPCStatusAfterMessage, and GRPCStatusAfterCall when every is set.
func grpcStatusAfter(code codes.Code, msg string, every bool) []grpc.ServerOption {
	unary := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if !every && !strings.HasSuffix(info.FullMethod, "/SendMessage") {
			return h(ctx, req)
		}
		_, _ = h(ctx, req)
		return nil, status.Error(code, msg)
	}
	stream := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if !every && !strings.HasSuffix(info.FullMethod, "/SendStreamingMessage") {
			return h(srv, ss)
		}
		_ = h(srv, discardStream{ss})
		return status.Error(code, msg)
	}
	return []grpc.ServerOption{grpc.ChainUnaryInterceptor(unary), grpc.ChainStreamInterceptor(stream)}
}

// discardStream receives as its ServerStream does and throws away what is sent.
type discardStream struct{ grpc.ServerStream }

func (discardStream) SendMsg(any) error            { return nil }
func (discardStream) SendHeader(metadata.MD) error { return nil }
func (discardStream) SetHeader(metadata.MD) error  { return nil }
