package probe

import (
	"context"
	"fmt"
	"strings"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/wire"
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
	if req.mode != tlsAuto || req.ep.explicitTLS() {
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
	if o, _ := wire.Classify(plain.ev); o == wire.Refused || o == wire.Unreachable {
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

// callGRPC makes one GetTask call on the Engine's channel for the address and TLS
// mode, under the Engine's request caps. The channel is kept for the next probe only
// when a gRPC server answered on it.
func callGRPC(ctx context.Context, req request, useTLS bool) attempt {
	method := grpcMethods[req.version]
	mode := "plaintext"
	if useTLS {
		mode = "TLS"
	}
	a := attempt{
		sent: fmt.Sprintf("gRPC %s %s (%s)", method, req.ep.hostport, mode),
		tls:  useTLS,
		ev:   wire.Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, GRPC: true},
	}
	e := req.o.engine
	release, err := e.gate.acquire(ctx, req.ep.hostport)
	if err != nil {
		a.ev = wire.Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, Err: err}
		a.seen = err.Error()
		return a
	}
	defer release()
	ch, err := e.grpc.get(grpcKey{addr: req.ep.hostport, tls: useTLS, connKey: req.o.connKey()}, req.o)
	if err != nil {
		a.ev = wire.Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, Err: err}
		a.seen = err.Error()
		return a
	}
	defer func() { e.grpc.put(ch, a.answered) }()
	e.reqs.Add(1)

	md := metadata.MD{}
	if req.o.credentialsFor(req.ep, useTLS) {
		for k, vs := range req.o.conn.Header {
			md.Append(strings.ToLower(k), vs...)
		}
	} else if len(req.o.conn.Header) > 0 {
		a.extra = append(a.extra, withheldNote)
	}
	var in, out proto.Message
	if req.version == card.V1 {
		md.Set(a2a.SvcParamVersion, card.V1) // metadata keys are lower-cased: a2a-version
		in, out = &a2apb.GetTaskRequest{Id: req.taskID, Tenant: req.tenant}, &a2apb.Task{}
	} else {
		in, out = &a2apbv0.GetTaskRequest{Name: "tasks/" + req.taskID}, &a2apbv0.Task{}
	}
	telemetry.InjectGRPC(ctx, md) // the agent's spans join the probe's trace
	var p peer.Peer
	ws := &wire.GRPCCall{} // this call's, on a channel other calls share
	ctx = wire.WithGRPCCall(metadata.NewOutgoingContext(ctx, md), ws)
	err = ch.conn.Invoke(ctx, method, in, out, grpc.Peer(&p))
	if info, ok := p.AuthInfo.(credentials.TLSInfo); ok {
		a.certExpiry = earliestExpiry(info.State.PeerCertificates)
	}
	if blocked := ch.refusal(); err != nil && blocked != nil && !ws.Answered() {
		// The dial policy refused the address it resolved to; grpc-go would only say
		// UNAVAILABLE with the refusal in its text.
		a.ev = wire.Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, Err: blocked}
		a.seen = blocked.Error()
		return a
	}
	st := status.Convert(err)
	wire.FillGRPC(&a.ev, st)
	a.ev.Sent, a.ev.Answered = ws.Sent(), ws.Answered()
	// For the probe an answer is a status the server chose: response headers followed by
	// our own deadline or a lost connection are no answer to read a binding from.
	a.answered = a.ev.Answered && st.Code() != codes.DeadlineExceeded && st.Code() != codes.Canceled && st.Code() != codes.Unavailable
	if a.answered {
		a.ev.Framing = a2a.TransportProtocolGRPC
	}
	a.seen = fmt.Sprintf("%s %q", st.Code(), clipText(st.Message(), 200))
	if a.ev.Reason != "" {
		a.seen += " " + a.ev.Reason
	}
	return a
}
