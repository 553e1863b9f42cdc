package wire

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/card"
)

// TestMappingProblem: A2A error answers compared with the table, per binding.
func TestMappingProblem(t *testing.T) {
	const (
		jr   = a2a.TransportProtocolJSONRPC
		grpc = a2a.TransportProtocolGRPC
		rest = a2a.TransportProtocolHTTPJSON
	)
	tnf := a2a.ErrorReason(a2a.ErrTaskNotFound)
	for _, tt := range []struct {
		name  string
		ev    Evidence
		wrong bool
	}{
		{"jsonrpc task not found", Evidence{Binding: jr, JSONRPCCode: -32001, HTTPStatus: 200}, false},
		{"jsonrpc code with another reason", Evidence{Binding: jr, JSONRPCCode: -32001, Reason: "UNSUPPORTED_OPERATION"}, true},
		{"grpc not found with ErrorInfo", Evidence{Binding: grpc, Version: card.V1, GRPC: true, Answered: true, GRPCCode: codes.NotFound, Reason: tnf}, false},
		{"grpc TASK_NOT_FOUND as INTERNAL", Evidence{Binding: grpc, Version: card.V1, GRPC: true, Answered: true, GRPCCode: codes.Internal, Reason: tnf}, true},
		{"grpc 0.3 INTERNAL naming the task looked up (a2a-js 0.3.14)", Evidence{Binding: grpc, Version: card.V03, GRPC: true, Answered: true, GRPCCode: codes.Internal, NamesTask: true}, true},
		{"grpc 1.0 NOT_FOUND without ErrorInfo", Evidence{Binding: grpc, Version: card.V1, GRPC: true, Answered: true, GRPCCode: codes.NotFound}, true},
		{"grpc 0.3 NOT_FOUND without ErrorInfo", Evidence{Binding: grpc, Version: card.V03, GRPC: true, Answered: true, GRPCCode: codes.NotFound}, false},
		{"grpc push unsupported as 1.0.0 UNIMPLEMENTED", Evidence{Binding: grpc, GRPC: true, Answered: true, GRPCCode: codes.Unimplemented,
			Reason: a2a.ErrorReason(a2a.ErrPushNotificationNotSupported)}, false},
		{"grpc push unsupported as INVALID_ARGUMENT", Evidence{Binding: grpc, GRPC: true, Answered: true, GRPCCode: codes.InvalidArgument,
			Reason: a2a.ErrorReason(a2a.ErrPushNotificationNotSupported)}, true},
		{"grpc status made up client-side", Evidence{Binding: grpc, GRPC: true, GRPCCode: codes.Unavailable, Reason: tnf}, false},
		{"rest 404 TASK_NOT_FOUND", Evidence{Binding: rest, Version: card.V1, HTTPStatus: 404, Reason: tnf}, false},
		{"rest TASK_NOT_FOUND as 500", Evidence{Binding: rest, Version: card.V1, HTTPStatus: 500, Reason: tnf}, true},
		{"rest 0.3 flat code as 200", Evidence{Binding: rest, Version: card.V03, HTTPStatus: 200, JSONRPCCode: -32001}, true},
		{"rest 0.3 flat code as 404", Evidence{Binding: rest, Version: card.V03, HTTPStatus: 404, JSONRPCCode: -32001}, false},
		{"rest 1.0 flat code without ErrorInfo", Evidence{Binding: rest, Version: card.V1, HTTPStatus: 404, JSONRPCCode: -32001}, true},
		{"rest stream error event", Evidence{Binding: rest, Version: card.V1, HTTPStatus: 200, ContentType: "text/event-stream", Reason: tnf}, false},
		{"no A2A error", Evidence{Binding: rest, HTTPStatus: 404}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := MappingProblem(tt.ev)
			if (got != "") != tt.wrong {
				t.Errorf("MappingProblem = %q, want a problem: %v", got, tt.wrong)
			}
		})
	}
}
