package server

import (
	"context"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/v2/a2a"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
)

// RegisterGRPC registers the A2A gRPC services (lf.a2a.v1.A2AService, and
// a2a.v1.A2AService with WithV03) on a gRPC server of one's own, with the server's
// A2A-Version check on every method. Call it before that server serves; with
// WithMounted, the card is published only once Start's self-check reached the services
// at the declared gRPC address over the real socket.
func (srv *Server) RegisterGRPC(reg grpc.ServiceRegistrar) {
	reg.RegisterService(srv.gatedDesc(&a2apb.A2AService_ServiceDesc), grpcTenantSubscribe{a2agrpc.NewHandler(srv.handler)})
	if srv.o.v03 {
		reg.RegisterService(srv.gatedDesc(&a2apbv0.A2AService_ServiceDesc), a2agrpcv0.NewHandler(srv.handler))
	}
}

// gatedDesc is a copy of a generated service description whose every method first
// refuses a call whose a2a-version metadata asks for a version the service does not
// speak (grpcVersionCheck): the check travels with the services to any gRPC server.
func (srv *Server) gatedDesc(d *grpc.ServiceDesc) *grpc.ServiceDesc {
	out := *d
	full := func(m string) string { return "/" + d.ServiceName + "/" + m }
	out.Methods = make([]grpc.MethodDesc, len(d.Methods))
	for i, m := range d.Methods {
		next, name := m.Handler, full(m.MethodName)
		out.Methods[i] = grpc.MethodDesc{MethodName: m.MethodName,
			Handler: func(s any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
				if err := srv.grpcVersionCheck(ctx, name); err != nil {
					return nil, err
				}
				return next(s, ctx, dec, ic)
			}}
	}
	out.Streams = make([]grpc.StreamDesc, len(d.Streams))
	for i, st := range d.Streams {
		next, name := st.Handler, full(st.StreamName)
		st.Handler = func(s any, ss grpc.ServerStream) error {
			if err := srv.grpcVersionCheck(ss.Context(), name); err != nil {
				return err
			}
			return next(s, ss)
		}
		out.Streams[i] = st
	}
	return &out
}

// grpcTenantSubscribe is a2a-go's gRPC handler with the request's tenant carried into
// SubscribeToTask: a2a-go v2.4.0 builds that request from the task id alone, so with
// WithTenant every gRPC subscribe was refused (no tenant), and the derived card's
// streaming claim was not served there. The tenant travels in the stream's context to
// conforming.SubscribeToTask, which puts it back into the request.
type grpcTenantSubscribe struct{ *a2agrpc.Handler }

// SubscribeToTask passes the request's tenant on in the stream's context.
func (h grpcTenantSubscribe) SubscribeToTask(req *a2apb.SubscribeToTaskRequest, stream grpc.ServerStreamingServer[a2apb.StreamResponse]) error {
	if t := req.GetTenant(); t != "" {
		stream = tenantStream{stream, context.WithValue(stream.Context(), grpcTenantKey{}, t)}
	}
	return h.Handler.SubscribeToTask(req, stream)
}

// grpcTenantKey is the context key of a gRPC SubscribeToTask's tenant.
type grpcTenantKey struct{}

// tenantStream is a server stream whose context carries the request's tenant.
type tenantStream struct {
	grpc.ServerStreamingServer[a2apb.StreamResponse]
	ctx context.Context
}

func (s tenantStream) Context() context.Context { return s.ctx }

// withGRPCTenant fills a SubscribeToTask request's tenant from the gRPC stream's
// context when a2a-go left it out (grpcTenantSubscribe).
func withGRPCTenant(ctx context.Context, req *a2a.SubscribeToTaskRequest) *a2a.SubscribeToTaskRequest {
	t, ok := ctx.Value(grpcTenantKey{}).(string)
	if !ok || req.Tenant != "" {
		return req
	}
	r := *req
	r.Tenant = t
	return &r
}
