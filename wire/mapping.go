package wire

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/card"
)

// ErrorIn returns the table's row for the A2A error an answer carries: by its JSON-RPC
// code (JSON-RPC, or a v0.3 flat error body), else by its ErrorInfo reason. ok is
// false for an answer that names no A2A error (a bare status, a success).
func ErrorIn(ev Evidence) (A2AError, bool) {
	if ev.JSONRPCCode != 0 {
		if e, ok := byJSONRPC[ev.JSONRPCCode]; ok {
			return e, true
		}
	}
	if ev.Reason != "" {
		e, ok := byReason[ev.Reason]
		return e, ok
	}
	return A2AError{}, false
}

// v100Codes are the codes A2A 1.0.0 gave some errors before 1.0.1 aligned them with
// google.rpc.Code: still accepted, as servers built on 1.0.0 answer them.
var v100Codes = map[error]struct {
	grpc codes.Code
	http int
}{
	a2a.ErrTaskNotCancelable:            {codes.FailedPrecondition, 409},
	a2a.ErrPushNotificationNotSupported: {codes.Unimplemented, 400},
	a2a.ErrUnsupportedOperation:         {codes.Unimplemented, 400},
	a2a.ErrUnsupportedContentType:       {codes.InvalidArgument, 415},
	a2a.ErrInvalidAgentResponse:         {codes.Internal, 502},
	a2a.ErrVersionNotSupported:          {codes.Unimplemented, 400},
}

// MappingProblem compares an A2A error answer with the table (A2A §5.4: the gRPC status
// and the HTTP+JSON status of each error; 1.0.0's codes accepted too) and says how it
// differs, "" when it agrees or names no A2A error. A 1.0 gRPC or HTTP+JSON error
// without its google.rpc.ErrorInfo is a difference too (§10.6, §11.6: clients read the
// reason), when the answer's code is the table's TaskNotFound code for a lookup.
func MappingProblem(ev Evidence) string {
	e, ok := ErrorIn(ev)
	if !ok {
		if ev.GRPC && ev.Answered && ev.NamesTask && ev.GRPCCode != codes.NotFound {
			return fmt.Sprintf("TASK_NOT_FOUND answered as gRPC %s (its message names the task looked up), the specification says NOT_FOUND", ev.GRPCCode)
		}
		if ev.Version == card.V1 && ev.GRPC && ev.Answered && ev.GRPCCode == codes.NotFound && ev.Reason == "" {
			return "gRPC NOT_FOUND without a google.rpc.ErrorInfo (the specification asks for reason TASK_NOT_FOUND in domain a2a-protocol.org)"
		}
		return ""
	}
	alt, hasAlt := v100Codes[e.Err]
	name := e.Reason()
	switch {
	case ev.GRPC && ev.Answered:
		if ev.GRPCCode != e.GRPC && (!hasAlt || ev.GRPCCode != alt.grpc) {
			return fmt.Sprintf("%s answered as gRPC %s, the specification says %s", name, ev.GRPCCode, e.GRPC)
		}
	case ev.Binding == a2a.TransportProtocolHTTPJSON && ev.HTTPStatus != 0:
		// A stream's status (200) went out before its first event: an error event in it
		// carries no HTTP status of its own (the specification does not say one).
		if ev.ContentType != "text/event-stream" && ev.HTTPStatus != e.HTTP && (!hasAlt || ev.HTTPStatus != alt.http) {
			return fmt.Sprintf("%s answered with HTTP %d, the specification says %d", name, ev.HTTPStatus, e.HTTP)
		}
		if ev.Version == card.V1 && ev.Reason == "" {
			return fmt.Sprintf("%s answered without a google.rpc.ErrorInfo (the specification asks for reason %s)", name, name)
		}
	case ev.Binding == a2a.TransportProtocolJSONRPC && ev.JSONRPCCode != 0 && ev.Reason != "" && ev.Reason != name:
		return fmt.Sprintf("JSON-RPC error %d carries ErrorInfo reason %s, the specification says %s", ev.JSONRPCCode, ev.Reason, name)
	}
	return ""
}
