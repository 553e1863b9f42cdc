package wire

import (
	"context"
	"sync/atomic"

	"google.golang.org/grpc/stats"
)

// GRPCCall records, for one gRPC call, what Evidence needs from the transport: the
// request headers went out on a live connection (Evidence.Sent), and response headers
// or trailers came back from a gRPC server (Evidence.Answered; grpc-go emits neither
// for the statuses it makes up itself, nor for an HTTP answer that is not gRPC).
type GRPCCall struct {
	sent, answered atomic.Bool
	greeting       atomic.Pointer[string] // GRPCDialOptions: the server's first bytes, for a call that failed unanswered
}

// Fill records the call in ev: Sent, Answered and, for a call that failed without an
// answer on a channel dialled with GRPCDialOptions, the start of what the server sent
// first on the connection, as Body.
func (c *GRPCCall) Fill(ev *Evidence) {
	ev.Sent = ev.Sent || c.Sent()
	ev.Answered = c.Answered()
	if g := c.greeting.Load(); g != nil && !ev.Answered {
		ev.Body = *g
	}
}

// Sent reports that the request headers were handed to a live connection.
func (c *GRPCCall) Sent() bool { return c.sent.Load() }

// Answered reports that response headers or trailers came back from the server.
func (c *GRPCCall) Answered() bool { return c.answered.Load() }

type grpcCallKey struct{}

// WithGRPCCall returns a context whose gRPC call GRPCStats records in c.
func WithGRPCCall(ctx context.Context, c *GRPCCall) context.Context {
	return context.WithValue(ctx, grpcCallKey{}, c)
}

// GRPCStats is THE gRPC stats handler of probe's and the delegate's channels: it hands
// each event to the GRPCCall of the call's context (WithGRPCCall), so one pooled
// channel serves many recorded calls.
type GRPCStats struct{}

var _ stats.Handler = GRPCStats{}

// TagRPC implements stats.Handler.
func (GRPCStats) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

// HandleRPC implements stats.Handler.
func (GRPCStats) HandleRPC(ctx context.Context, s stats.RPCStats) {
	c, ok := ctx.Value(grpcCallKey{}).(*GRPCCall)
	if !ok || c == nil {
		return
	}
	switch s.(type) {
	case *stats.OutHeader:
		c.sent.Store(true)
	case *stats.InHeader, *stats.InTrailer:
		c.answered.Store(true)
	}
}

// TagConn implements stats.Handler.
func (GRPCStats) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

// HandleConn implements stats.Handler.
func (GRPCStats) HandleConn(context.Context, stats.ConnStats) {}
