package telemetry

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// Carries reports whether ctx holds a trace context to propagate: a valid span
// context or baggage. Without one, InjectHTTP and InjectGRPC write nothing.
func Carries(ctx context.Context) bool {
	return trace.SpanContextFromContext(ctx).IsValid() || baggage.FromContext(ctx).Len() > 0
}

// InjectHTTP writes the W3C traceparent (and tracestate, baggage) of the span in ctx
// into h. It writes nothing when ctx carries no span context.
func InjectHTTP(ctx context.Context, h http.Header) {
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(h))
}

// InjectGRPC writes the trace context of ctx into gRPC metadata (lower-case keys, as
// gRPC sends them).
func InjectGRPC(ctx context.Context, md metadata.MD) {
	otel.GetTextMapPropagator().Inject(ctx, mdCarrier(md))
}

// Transport wraps next so that every request carries the trace context of its own
// context. A request whose context carries neither a span context nor baggage is
// passed on untouched, at no cost.
func Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{next: next}
}

type transport struct{ next http.RoundTripper }

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	if !Carries(ctx) {
		return t.next.RoundTrip(r) // nothing to carry: no header map built on every request
	}
	h := http.Header{}
	InjectHTTP(ctx, h)
	if len(h) > 0 {
		r = r.Clone(ctx) // a RoundTripper must not change the caller's request
		for k, vs := range h {
			r.Header[k] = vs
		}
	}
	return t.next.RoundTrip(r)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the wrapped transport.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// GRPCDialOptions are the dial options that put the trace context of each call's
// context into its outgoing metadata, unary and streaming alike.
func GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			return invoker(outgoing(ctx), method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			return streamer(outgoing(ctx), desc, cc, method, opts...)
		}),
	}
}

// outgoing adds the trace context of ctx to its outgoing gRPC metadata.
func outgoing(ctx context.Context) context.Context {
	md := metadata.MD{}
	InjectGRPC(ctx, md)
	if len(md) == 0 {
		return ctx
	}
	kv := make([]string, 0, 2*len(md))
	for k, vs := range md {
		for _, v := range vs {
			kv = append(kv, k, v)
		}
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

// mdCarrier adapts gRPC metadata to the propagation API.
type mdCarrier metadata.MD

func (c mdCarrier) Get(key string) string {
	if vs := metadata.MD(c).Get(key); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

func (c mdCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c mdCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// ExtractGRPC returns ctx with the remote span context found in the incoming gRPC
// metadata md, for servers and test agents that record what they received.
func ExtractGRPC(ctx context.Context, md metadata.MD) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, mdCarrier(md))
}
