package probe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
)

// TestClassifyGRPCAfterSent covers the gRPC statuses whose meaning depends on whether
// the request was on the wire (delegate records it with a stats handler).
func TestClassifyGRPCAfterSent(t *testing.T) {
	tests := []struct {
		name string
		ev   Evidence
		want Outcome
	}{
		{"unavailable refused before sending", Evidence{GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: "connection error: desc = \"transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused\""}, Refused},
		{"unavailable unknown text before sending", Evidence{GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: "something odd"}, Refused},
		{"unavailable after sending", Evidence{GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: "error reading from server: EOF", Sent: true}, Ambiguous},
		{"unavailable transport closing after sending", Evidence{GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: "transport is closing", Sent: true}, Ambiguous},
		{"deadline before sending", Evidence{GRPC: true, GRPCCode: codes.DeadlineExceeded, GRPCMessage: "context deadline exceeded"}, Timeout},
		{"deadline after sending", Evidence{GRPC: true, GRPCCode: codes.DeadlineExceeded, GRPCMessage: "context deadline exceeded", Sent: true}, Ambiguous},
		{"unimplemented after sending", Evidence{GRPC: true, GRPCCode: codes.Unimplemented, GRPCMessage: "unknown service lf.a2a.v1.A2AService", Sent: true}, HandlerMissing},
		{"unauthenticated after sending", Evidence{GRPC: true, GRPCCode: codes.Unauthenticated, GRPCMessage: "missing token", Sent: true}, AuthRequired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := Classify(tt.ev)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Classify() wrong outcome (-want +got):\n%s", diff)
			}
		})
	}
}
