package lab

import (
	"context"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// MisMapped is the healthy agent answering A2A errors with other codes than the
// specification's table, as SDKs have done (a2a-python #1166, a2a-java #730):
// TaskNotFound comes as gRPC INTERNAL (its ErrorInfo kept) and as HTTP 500 on HTTP+JSON
// (its google.rpc.Status body kept). JSON-RPC is untouched.
func MisMapped() []Option {
	toInternal := func(err error) error {
		if st, ok := status.FromError(err); ok && st.Code() == codes.NotFound {
			p := st.Proto()
			p.Code = int32(codes.Internal)
			return status.ErrorProto(p)
		}
		return err
	}
	return append(Healthy(),
		WithGRPCServerOptions(
			grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				resp, err := h(ctx, req)
				return resp, toInternal(err)
			}),
			grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
				return toInternal(h(srv, ss))
			})),
		WithHTTPMiddleware(func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, PathREST+"/") {
					w = notFoundAs500{w}
				}
				next.ServeHTTP(w, r)
			})
		}))
}

// notFoundAs500 writes a 500 where the handler writes a 404.
type notFoundAs500 struct{ http.ResponseWriter }

func (w notFoundAs500) WriteHeader(code int) {
	if code == http.StatusNotFound {
		code = http.StatusInternalServerError
	}
	w.ResponseWriter.WriteHeader(code)
}

// Flush passes a stream's flush on.
func (w notFoundAs500) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
