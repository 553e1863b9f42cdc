package probe

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2abind/a2abind/card"
)

// grpcTLSOnly marks, in a detail, a bare host:port gRPC address served over TLS only.
const grpcTLSOnly = "TLS answered; plaintext did not"

// grpcMethods are the task lookup methods of each protocol version, from the SDK's
// generated code.
var grpcMethods = map[string]string{
	card.V1:  a2apb.A2AService_GetTask_FullMethodName,   // "/lf.a2a.v1.A2AService/GetTask"
	card.V03: a2apbv0.A2AService_GetTask_FullMethodName, // "/a2a.v1.A2AService/GetTask"
}

// probeGRPC calls GetTask for a random task id on the service of the requested version
// (lf.a2a.v1.A2AService for 1.0 with a2a-version metadata, a2a.v1.A2AService for 0.3
// without). A served interface answers NOT_FOUND.
//
// TLS: https:// and grpcs:// use TLS, http:// and grpc:// plaintext. A bare host:port
// (the form the 1.0 proto asks for) says nothing, so it is tried the way Go, Python and
// JavaScript clients dial by default: plaintext (h2c) first, then TLS when plaintext
// got no gRPC answer; the detail says which worked.
func probeGRPC(ctx context.Context, req request) attempt {
	if req.mode != tlsAuto || req.ep.scheme != "" {
		return callGRPC(ctx, req, req.ep.secure(req.mode))
	}
	plain := callGRPC(ctx, req, false)
	if plain.answered {
		plain.extra = append(plain.extra, "bare host:port, plaintext (h2c) answered")
		return plain
	}
	if ctx.Err() != nil || plain.ev.GRPCCode == codes.DeadlineExceeded {
		return plain
	}
	if o, _ := Classify(plain.ev); o == Refused || o == Unreachable {
		return plain
	}
	secure := callGRPC(ctx, req, true)
	if secure.answered {
		secure.extra = append(secure.extra, "bare host:port: "+grpcTLSOnly+" ("+plain.seen+"), so clients dialling plaintext fail")
		return secure
	}
	plain.extra = append(plain.extra, "bare host:port: TLS did not answer either ("+secure.seen+")")
	return plain
}

// callGRPC makes one GetTask call over a fresh connection and closes it.
func callGRPC(ctx context.Context, req request, useTLS bool) attempt {
	method := grpcMethods[req.version]
	mode := "plaintext"
	creds := insecure.NewCredentials()
	if useTLS {
		mode = "TLS"
		creds = credentials.NewTLS(req.o.tlsConfig(req.ep.host()))
	}
	a := attempt{
		sent: fmt.Sprintf("gRPC %s %s (%s)", method, req.ep.hostport, mode),
		tls:  useTLS,
		ev:   Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, GRPC: true},
	}
	wire := &wireStats{}
	conn, err := grpc.NewClient("passthrough:///"+req.ep.hostport,
		grpc.WithTransportCredentials(creds),
		grpc.WithStatsHandler(wire),
		grpc.WithUserAgent("a2abind-probe"),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxBody)),
		grpc.WithMaxHeaderListSize(maxBody),
	)
	if err != nil {
		a.ev = Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, Err: err}
		a.seen = err.Error()
		return a
	}
	defer conn.Close()

	md := metadata.MD{}
	for k, vs := range req.o.header {
		md.Append(strings.ToLower(k), vs...)
	}
	var in, out proto.Message
	if req.version == card.V1 {
		md.Set(a2a.SvcParamVersion, card.V1) // metadata keys are lower-cased: a2a-version
		in, out = &a2apb.GetTaskRequest{Id: req.taskID, Tenant: req.tenant}, &a2apb.Task{}
	} else {
		in, out = &a2apbv0.GetTaskRequest{Name: "tasks/" + req.taskID}, &a2apbv0.Task{}
	}
	err = conn.Invoke(metadata.NewOutgoingContext(ctx, md), method, in, out)
	st := status.Convert(err)
	a.ev.GRPCCode, a.ev.GRPCMessage, a.message = st.Code(), st.Message(), st.Message()
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() != "" {
			a.ev.Reason = info.GetReason()
		}
	}
	a.ev.Sent, a.ev.Answered = wire.sent.Load(), wire.answered.Load()
	// For the probe an answer is a status the server chose: response headers followed by
	// our own deadline or a lost connection are no answer to read a binding from.
	a.answered = a.ev.Answered && st.Code() != codes.DeadlineExceeded && st.Code() != codes.Canceled && st.Code() != codes.Unavailable
	if a.answered {
		a.ev.Framing = a2a.TransportProtocolGRPC
	}
	a.seen = fmt.Sprintf("%s %q", st.Code(), trim(st.Message(), 200))
	if a.ev.Reason != "" {
		a.seen += " " + a.ev.Reason
	}
	return a
}

// wireStats records, for one call, what Evidence needs from the gRPC transport: the
// request headers went out on a live connection (Sent), and response headers or
// trailers came back from a gRPC server (Answered; grpc-go emits neither for statuses
// it makes up itself, nor for an HTTP answer that is not gRPC). delegate records the
// same with the same events.
type wireStats struct {
	sent, answered atomic.Bool
}

// TagRPC implements stats.Handler.
func (*wireStats) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

// HandleRPC implements stats.Handler.
func (w *wireStats) HandleRPC(_ context.Context, s stats.RPCStats) {
	switch s.(type) {
	case *stats.OutHeader:
		w.sent.Store(true)
	case *stats.InHeader, *stats.InTrailer:
		w.answered.Store(true)
	}
}

// TagConn implements stats.Handler.
func (*wireStats) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

// HandleConn implements stats.Handler.
func (*wireStats) HandleConn(context.Context, stats.ConnStats) {}
