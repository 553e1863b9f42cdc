package wire

import (
	"context"
	"net"
	"sync/atomic"

	"google.golang.org/grpc"
)

// greetingBytes is how many of a connection's first bytes GRPCDialOptions keeps.
const greetingBytes = 32

// GRPCDialOptions are THE dial options by which probe's and the delegate's gRPC
// channels connect and are recorded: dial makes each connection, GRPCStats records
// each call in its GRPCCall (WithGRPCCall), and the first bytes the server sent on the
// connection go to the GRPCCall of a call that failed without an answer (Fill puts
// them in Evidence.Body), so that Classify reads what the server said (an HTTP/1.x status line to
// the HTTP/2 preface or the TLS ClientHello) rather than grpc-go's wording of it.
func GRPCDialOptions(dial func(context.Context, string) (net.Conn, error)) []grpc.DialOption {
	g := &atomic.Pointer[string]{} // the first bytes the server sent on the latest connection
	note := func(ctx context.Context, err error) {
		if c, ok := ctx.Value(grpcCallKey{}).(*GRPCCall); ok && c != nil && err != nil && !c.Answered() {
			c.greeting.Store(g.Load())
		}
	}
	return []grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			g.Store(nil) // what an earlier connection said is no evidence about this one
			conn, err := dial(ctx, addr)
			if err != nil {
				return nil, err
			}
			return &greetedConn{Conn: conn, g: g}, nil
		}),
		grpc.WithStatsHandler(GRPCStats{}),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			err := invoker(ctx, method, req, reply, cc, opts...)
			note(ctx, err)
			return err
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			cs, err := streamer(ctx, desc, cc, method, opts...)
			note(ctx, err)
			return cs, err
		}),
	}
}

// greetedConn keeps the first greetingBytes it reads in g.
type greetedConn struct {
	net.Conn
	g    *atomic.Pointer[string]
	head []byte
	done bool
}

func (c *greetedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.done && n > 0 {
		c.head = append(c.head, p[:min(n, greetingBytes-len(c.head))]...)
		c.done = len(c.head) == greetingBytes
		head := string(c.head)
		c.g.Store(&head)
	}
	return n, err
}
