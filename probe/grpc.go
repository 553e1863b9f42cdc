package probe

import (
	"context"
	"io"
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
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2abind/a2abind/wire"
)

// grpcTLSOnly marks, in a detail, a bare host:port gRPC address served over TLS only.
const grpcTLSOnly = "TLS answered; plaintext did not"

// grpcCall is one operation's gRPC method and messages for one protocol version.
type grpcCall struct {
	method  string
	in, out proto.Message
	stream  bool // a server-streaming method: the first message or the status is read
}

// grpcCalls builds each operation's call, from the SDK's generated code: the service
// lf.a2a.v1.A2AService for 1.0, a2a.v1.A2AService (resource names "tasks/{id}") for 0.3.
var grpcCalls = map[operation]map[string]func(id, tenant string) grpcCall{
	opGetTask: {
		card.V1: func(id, tenant string) grpcCall {
			return grpcCall{a2apb.A2AService_GetTask_FullMethodName, &a2apb.GetTaskRequest{Id: id, Tenant: tenant}, &a2apb.Task{}, false}
		},
		card.V03: func(id, _ string) grpcCall {
			return grpcCall{a2apbv0.A2AService_GetTask_FullMethodName, &a2apbv0.GetTaskRequest{Name: "tasks/" + id}, &a2apbv0.Task{}, false}
		},
	},
	opSubscribe: {
		card.V1: func(id, tenant string) grpcCall {
			return grpcCall{a2apb.A2AService_SubscribeToTask_FullMethodName, &a2apb.SubscribeToTaskRequest{Id: id, Tenant: tenant}, &a2apb.StreamResponse{}, true}
		},
		card.V03: func(id, _ string) grpcCall {
			return grpcCall{a2apbv0.A2AService_TaskSubscription_FullMethodName, &a2apbv0.TaskSubscriptionRequest{Name: "tasks/" + id}, &a2apbv0.StreamResponse{}, true}
		},
	},
	opListPushConfigs: {
		card.V1: func(id, tenant string) grpcCall {
			return grpcCall{a2apb.A2AService_ListTaskPushNotificationConfigs_FullMethodName,
				&a2apb.ListTaskPushNotificationConfigsRequest{TaskId: id, Tenant: tenant}, &a2apb.ListTaskPushNotificationConfigsResponse{}, false}
		},
		card.V03: func(id, _ string) grpcCall {
			return grpcCall{a2apbv0.A2AService_ListTaskPushNotificationConfig_FullMethodName,
				&a2apbv0.ListTaskPushNotificationConfigRequest{Parent: "tasks/" + id}, &a2apbv0.ListTaskPushNotificationConfigResponse{}, false}
		},
	},
	opExtendedCard: {
		card.V1: func(_, tenant string) grpcCall {
			return grpcCall{a2apb.A2AService_GetExtendedAgentCard_FullMethodName, &a2apb.GetExtendedAgentCardRequest{Tenant: tenant}, &a2apb.AgentCard{}, false}
		},
		card.V03: func(string, string) grpcCall {
			return grpcCall{a2apbv0.A2AService_GetAgentCard_FullMethodName, &a2apbv0.GetAgentCardRequest{}, &a2apbv0.AgentCard{}, false}
		},
	},
}

// probeGRPC calls GetTask for a random task id on the service of the requested version
// (lf.a2a.v1.A2AService for 1.0 with a2a-version metadata, a2a.v1.A2AService for 0.3
// without). A served interface answers NOT_FOUND. A capability's operation calls its
// method the same way (grpcCalls).
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

// callGRPC makes the request's call on the Engine's channel for the address and TLS
// mode, under the Engine's request caps. The channel is kept for the next probe only
// when a gRPC server answered on it.
func callGRPC(ctx context.Context, req request, useTLS bool) attempt {
	call := grpcCalls[req.op][req.version](req.taskID, req.tenant)
	method := call.method
	mode := "plaintext"
	if useTLS {
		mode = "TLS"
	}
	a := attempt{
		sent: "gRPC " + method + " " + req.ep.hostport + " (" + mode + ")",
		tls:  useTLS,
		ev:   wire.Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, GRPC: true},
	}
	e := req.o.engine
	var slot slot
	if err := e.gate.acquire(ctx, req.ep.hostport, &slot); err != nil {
		a.ev = wire.Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, Err: err}
		a.seen = err.Error()
		return a
	}
	defer slot.release()
	ch, err := e.grpc.get(grpcKey{addr: req.ep.hostport, tls: useTLS, connKey: req.o.connKey()}, req.o)
	if err != nil {
		a.ev = wire.Evidence{Binding: a2a.TransportProtocolGRPC, Version: req.version, Err: err}
		a.seen = err.Error()
		return a
	}
	defer func() { e.grpc.put(ch, a.answered) }()
	e.reqs.Add(1)

	headers := len(req.o.conn.Header) > 0 && req.o.credentialsFor(req.ep, useTLS)
	if len(req.o.conn.Header) > 0 && !headers {
		a.extra = append(a.extra, withheldNote)
	}
	outgoing := func(ctx context.Context) context.Context {
		if !headers && !telemetry.Carries(ctx) {
			// Only the version to send: as a pair, without a metadata map to build.
			if req.version == card.V1 {
				return metadata.AppendToOutgoingContext(ctx, a2a.SvcParamVersion, card.V1)
			}
			return ctx
		}
		md := metadata.MD{}
		if headers {
			for k, vs := range req.o.conn.Header {
				md.Append(strings.ToLower(k), vs...)
			}
		}
		if req.version == card.V1 {
			md.Set(a2a.SvcParamVersion, card.V1) // metadata keys are lower-cased: a2a-version
		}
		telemetry.InjectGRPC(ctx, md) // the agent's spans join the probe's trace
		return metadata.NewOutgoingContext(ctx, md)
	}
	var p *peer.Peer // the certificates of a TLS answer; plaintext has none to read
	if useTLS {
		p = &peer.Peer{}
	}
	ws := &wire.GRPCCall{} // this call's, on a channel other calls share
	err = withinBudget(ctx, func(ctx context.Context) error {
		return invokeGRPC(wire.WithGRPCCall(outgoing(ctx), ws), ch.conn, call, p)
	})
	if p != nil {
		if info, ok := p.AuthInfo.(credentials.TLSInfo); ok {
			a.certExpiry = earliestExpiry(info.State.PeerCertificates)
		}
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
	ws.Fill(&a.ev)
	a.ev.NamesTask = req.taskID != "" && strings.Contains(st.Message(), req.taskID)
	// For the probe an answer is a status the server chose: response headers followed by
	// our own deadline or a lost connection are no answer to read a binding from.
	a.answered = a.ev.Answered && st.Code() != codes.DeadlineExceeded && st.Code() != codes.Canceled && st.Code() != codes.Unavailable
	if a.answered {
		a.ev.Framing = a2a.TransportProtocolGRPC
	}
	var buf [160]byte // one buffer: every gRPC lookup's evidence has one
	b := wire.AppendQuote(append(append(buf[:0], st.Code().String()...), ' '), wording.Truncate(st.Message(), 200))
	if a.ev.Reason != "" {
		b = append(append(b, ' '), a.ev.Reason...)
	}
	a.seen = string(b)
	return a
}

// withinBudget makes a gRPC call with a context that carries ctx's values and is
// cancelled when ctx ends, without ctx's deadline. The call is bounded by its budget
// all the same, but sends no grpc-timeout: grpc-go then sets no timer of its own on
// either side of the call, for a lookup that has no work to stop (a random task id).
// A call the budget ended reads as grpc-go would have read it holding the deadline
// (DeadlineExceeded), not as a cancellation.
func withinBudget(ctx context.Context, call func(context.Context) error) error {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	err := call(c)
	if err != nil && ctx.Err() != nil && status.Code(err) == codes.Canceled {
		err = status.FromContextError(ctx.Err()).Err()
	}
	return err
}

// invokeGRPC makes one call: unary, or for a server-streaming method the first message
// (or the status that ends the stream instead), after which the stream is cancelled.
// The peer is recorded in p, unless p is nil.
func invokeGRPC(ctx context.Context, conn *grpc.ClientConn, call grpcCall, p *peer.Peer) error {
	if !call.stream {
		if p == nil {
			return conn.Invoke(ctx, call.method, call.in, call.out)
		}
		return conn.Invoke(ctx, call.method, call.in, call.out, grpc.Peer(p))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends an endless stream after its first message
	// Not grpc.Peer: it is filled in when the stream finishes, which the cancel above
	// leaves to another goroutine; the stream's context carries the peer once it is up.
	cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, call.method)
	if err != nil {
		return err
	}
	defer func() {
		if pr, ok := peer.FromContext(cs.Context()); ok && p != nil {
			*p = *pr
		}
	}()
	if err := cs.SendMsg(call.in); err != nil {
		return cs.RecvMsg(call.out) // the status that ended the stream
	}
	_ = cs.CloseSend()
	if err := cs.RecvMsg(call.out); err != io.EOF {
		return err // nil: a first message arrived (a task of that id exists)
	}
	return nil // the stream ended with OK and no message
}
