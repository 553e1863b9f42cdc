package otlptest

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/tap"
)

// Received is one request an agent received, with the W3C trace context it carried.
type Received struct {
	// Protocol is "http" or "grpc".
	Protocol string
	// Method is the HTTP method and path ("POST /"), or the gRPC full method name.
	Method string
	// Traceparent and Tracestate are the headers (or metadata) as received, "" if absent.
	Traceparent, Tracestate string
}

// TraceID is the trace id of the traceparent, "" when there is none.
func (r Received) TraceID() string {
	if parts := strings.Split(r.Traceparent, "-"); len(parts) == 4 {
		return parts[1]
	}
	return ""
}

// ParentID is the span id of the traceparent: the caller's span that sent the request.
func (r Received) ParentID() string {
	if parts := strings.Split(r.Traceparent, "-"); len(parts) == 4 {
		return parts[2]
	}
	return ""
}

// Recorder records the trace context of every request an agent receives, over HTTP
// (HTTP middleware) and gRPC (a tap handle).
type Recorder struct {
	mu   sync.Mutex
	seen []Received
}

// HTTP wraps next, recording each request before passing it on.
func (r *Recorder) HTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.add(Received{Protocol: "http", Method: req.Method + " " + req.URL.Path,
			Traceparent: req.Header.Get("Traceparent"), Tracestate: req.Header.Get("Tracestate")})
		next.ServeHTTP(w, req)
	})
}

// GRPCOption is the server option that records each gRPC call's metadata (a tap
// handle: it sees calls to services the server does not register too).
func (r *Recorder) GRPCOption() grpc.ServerOption {
	return grpc.InTapHandle(func(ctx context.Context, info *tap.Info) (context.Context, error) {
		first := func(k string) string {
			if vs := info.Header.Get(k); len(vs) > 0 {
				return vs[0]
			}
			return ""
		}
		r.add(Received{Protocol: "grpc", Method: info.FullMethodName, Traceparent: first("traceparent"), Tracestate: first("tracestate")})
		return ctx, nil
	})
}

// Received returns what was received so far, in arrival order.
func (r *Recorder) Received() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received(nil), r.seen...)
}

func (r *Recorder) add(rc Received) {
	r.mu.Lock()
	r.seen = append(r.seen, rc)
	r.mu.Unlock()
}
