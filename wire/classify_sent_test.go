package wire_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/wire"
)

// TestClassifyGRPCAfterSent covers the gRPC statuses whose meaning depends on whether
// the request was on the wire and whether the status came from the server (delegate and
// probe record both with a stats handler).
func TestClassifyGRPCAfterSent(t *testing.T) {
	tests := []struct {
		name string
		ev   wire.Evidence
		want wire.Outcome
	}{
		{"unavailable refused before sending", wire.Evidence{GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: "connection error: desc = \"transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused\""}, wire.Refused},
		{"unavailable unknown text before sending", wire.Evidence{GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: "something odd"}, wire.Refused},
		{"unavailable after sending", wire.Evidence{GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: "error reading from server: EOF", Sent: true}, wire.Ambiguous},
		{"unavailable transport closing after sending", wire.Evidence{GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: "transport is closing", Sent: true}, wire.Ambiguous},
		{"deadline before sending", wire.Evidence{GRPC: true, GRPCCode: codes.DeadlineExceeded, GRPCMessage: "context deadline exceeded"}, wire.Timeout},
		{"deadline after sending", wire.Evidence{GRPC: true, GRPCCode: codes.DeadlineExceeded, GRPCMessage: "context deadline exceeded", Sent: true}, wire.Ambiguous},
		{"unimplemented from the server after sending", wire.Evidence{GRPC: true, Answered: true, GRPCCode: codes.Unimplemented, GRPCMessage: "unknown service lf.a2a.v1.A2AService", Sent: true}, wire.HandlerMissing},
		{"unauthenticated from the server after sending", wire.Evidence{GRPC: true, Answered: true, GRPCCode: codes.Unauthenticated, GRPCMessage: "missing token", Sent: true}, wire.AuthRequired},
		// Hole 2(a): once the server answered with a status, its text is the executor's,
		// never a connection failure.
		{"executor error imitating refused", wire.Evidence{GRPC: true, Answered: true, Sent: true, GRPCCode: codes.Internal, Reason: "INTERNAL_ERROR",
			GRPCMessage: "tool call failed: dial tcp 10.0.0.5:5432: connect: connection refused"}, wire.Ambiguous},
		{"executor error imitating no such host", wire.Evidence{GRPC: true, Answered: true, Sent: true, GRPCCode: codes.Unknown, GRPCMessage: "lookup db.internal: no such host"}, wire.Ambiguous},
		{"executor error imitating x509", wire.Evidence{GRPC: true, Answered: true, Sent: true, GRPCCode: codes.Unavailable, GRPCMessage: "x509: certificate signed by unknown authority"}, wire.Ambiguous},
		{"executor error imitating a preface failure", wire.Evidence{GRPC: true, Answered: true, Sent: true, GRPCCode: codes.Internal,
			GRPCMessage: "connection error: desc = \"error reading server preface: http2: frame too large, note that the frame header looked like an HTTP/1.1 header\""}, wire.Ambiguous},
		{"unimplemented with an A2A reason is an A2A answer", wire.Evidence{GRPC: true, Answered: true, Sent: true, GRPCCode: codes.Unimplemented, Reason: "UNSUPPORTED_OPERATION", GRPCMessage: "push notifications"}, wire.AgentError},
		{"client-side status of a lost connection after sending", wire.Evidence{GRPC: true, Sent: true, GRPCCode: codes.Internal, GRPCMessage: "connection refused"}, wire.Ambiguous},
		{"gRPC at an HTTP/2 server answering 404 after sending", wire.Evidence{GRPC: true, Sent: true, GRPCCode: codes.Unimplemented,
			GRPCMessage: "unexpected HTTP status code received from server: 404 (Not Found)"}, wire.WrongBinding},
		{"gRPC at an HTTP/2 proxy answering 502 after sending", wire.Evidence{GRPC: true, Sent: true, GRPCCode: codes.Unavailable,
			GRPCMessage: "unexpected HTTP status code received from server: 502 (Bad Gateway)"}, wire.Ambiguous},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := wire.Classify(tt.ev)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Classify() wrong outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHTTP1GreetingAtGRPC (issue 44 item 3): a gRPC call that failed before any answer,
// whose connection's first bytes from the server are an HTTP/1.x status line, is a wrong
// binding proved by the framing, however grpc-go worded the failure (its preface or TLS
// handshake error); other first bytes leave the wording to decide.
func TestHTTP1GreetingAtGRPC(t *testing.T) {
	for _, tt := range []struct {
		msg, body string
		want      wire.Outcome
	}{
		{"connection error: desc = \"error reading server preface: http2: frame too large\"", "HTTP/1.0 400 Bad Request\r\n", wire.WrongBinding},
		{"connection error: desc = \"error reading server preface: unexpected EOF\"", "HTTP/1.1", wire.WrongBinding},
		{"connection error: desc = \"transport: authentication handshake failed: tls: first record does not look like a TLS handshake\"", "HTTP/1.1 400 Bad Request\r\n", wire.WrongBinding},
		{"connection error: desc = \"transport: authentication handshake failed: tls: first record does not look like a TLS handshake\"", "\x00\x00\x12\x04\x00", wire.TLSMismatch},
		{"connection error: desc = \"error reading server preface: http2: frame too large\"", "400 Bad Request: not HTTP/2", wire.Malformed},
	} {
		ev := wire.Evidence{Binding: a2a.TransportProtocolGRPC, GRPC: true, GRPCCode: codes.Unavailable, GRPCMessage: tt.msg, Body: tt.body}
		v := wire.Judge(ev)
		if v.Outcome != tt.want || tt.want == wire.WrongBinding && v.Weight != wire.Proves {
			t.Errorf("Judge(%q after %q) = %s (%s), want %s", tt.msg, tt.body, v.Outcome, v.Weight, tt.want)
		}
	}
}
