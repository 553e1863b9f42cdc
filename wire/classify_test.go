package wire_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	grpccodes "google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/wire"
)

const (
	jsonrpc  = a2a.TransportProtocolJSONRPC
	grpc     = a2a.TransportProtocolGRPC
	httpjson = a2a.TransportProtocolHTTPJSON
)

// TestClassify is the wire classification table: one row per kind of evidence the
// probers, the server self-check and delegate produce.
func TestClassify(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	dns := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "agent.invalid", IsNotFound: true}}
	tests := []struct {
		name string
		ev   wire.Evidence
		want wire.Outcome
	}{
		// JSON-RPC
		{"JSON-RPC TaskNotFound", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32001, Framing: jsonrpc}, wire.Served},
		{"JSON-RPC TaskNotFound by reason", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32001, Reason: "TASK_NOT_FOUND", Framing: jsonrpc}, wire.Served},
		{"JSON-RPC result", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, Framing: jsonrpc}, wire.Served},
		{"JSON-RPC method not found", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32601, Framing: jsonrpc}, wire.HandlerMissing},
		{"JSON-RPC VersionNotSupported", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32009, Framing: jsonrpc}, wire.VersionMismatch},
		{"JSON-RPC VERSION_NOT_SUPPORTED reason", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32099, Reason: "VERSION_NOT_SUPPORTED"}, wire.VersionMismatch},
		{"a2a-js: -32005 with HTTP 200", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32005, Framing: jsonrpc}, wire.WrongBinding},
		{"a2a-java: HTTP 415", wire.Evidence{Binding: jsonrpc, HTTPStatus: 415, ContentType: "application/json"}, wire.WrongBinding},
		{"a2a-java: HTTP 415 with a JSON-RPC body", wire.Evidence{Binding: jsonrpc, HTTPStatus: 415, JSONRPCCode: -32005, Framing: jsonrpc}, wire.WrongBinding},
		{"JSON-RPC parse error", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32700, Framing: jsonrpc}, wire.Malformed},
		{"JSON-RPC invalid params is an A2A answer", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32602, Framing: jsonrpc}, wire.AgentError},
		{"JSON-RPC unknown A2A code", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32077}, wire.AgentError},
		{"a2a-go unauthenticated", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -31401}, wire.AuthRequired},
		{"JSON-RPC 200 but no JSON-RPC body", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, Framing: wire.Unrecognised, Body: "<html>"}, wire.Malformed},
		{"JSON-RPC answered by an HTTP+JSON TASK_NOT_FOUND 404", wire.Evidence{Binding: jsonrpc, HTTPStatus: 404, Reason: "TASK_NOT_FOUND", Framing: httpjson}, wire.NotFound},
		{"JSON-RPC answered by HTTP+JSON", wire.Evidence{Binding: jsonrpc, HTTPStatus: 400, Framing: httpjson}, wire.WrongBinding},

		// HTTP statuses
		{"401", wire.Evidence{Binding: jsonrpc, HTTPStatus: 401, Framing: wire.Unrecognised}, wire.AuthRequired},
		{"403", wire.Evidence{Binding: httpjson, HTTPStatus: 403}, wire.AuthRequired},
		{"plain 404", wire.Evidence{Binding: httpjson, HTTPStatus: 404, ContentType: "text/plain", Framing: wire.Unrecognised}, wire.NotFound},
		{"405", wire.Evidence{Binding: jsonrpc, HTTPStatus: 405, Framing: wire.Unrecognised}, wire.NotFound},
		{"redirect", wire.Evidence{Binding: jsonrpc, HTTPStatus: 307, Framing: wire.Unrecognised}, wire.NotFound},
		{"plaintext to a Go TLS server", wire.Evidence{Binding: jsonrpc, HTTPStatus: 400, Framing: wire.Unrecognised, Body: "Client sent an HTTP request to an HTTPS server.\n"}, wire.TLSMismatch},
		{"plaintext to nginx TLS", wire.Evidence{Binding: httpjson, HTTPStatus: 400, Body: "<center>The plain HTTP request was sent to HTTPS port</center>"}, wire.TLSMismatch},
		{"502 from a gateway", wire.Evidence{Binding: jsonrpc, HTTPStatus: 502, Framing: wire.Unrecognised}, wire.Ambiguous},
		{"504", wire.Evidence{Binding: jsonrpc, HTTPStatus: 504}, wire.Timeout},
		{"200, then the body cut by the deadline", wire.Evidence{Binding: httpjson, HTTPStatus: 200, Sent: true,
			Err: fmt.Errorf("read: %w", context.DeadlineExceeded)}, wire.Ambiguous},
		{"200, then the connection reset", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, Sent: true, Err: syscall.ECONNRESET}, wire.Ambiguous},
		{"200, then an unknown read error", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, Err: errors.New("read: something went wrong")}, wire.Ambiguous},
		{"200 with an unrecognised body cut short", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, Framing: wire.Unrecognised, Err: io.ErrUnexpectedEOF}, wire.Malformed},

		// HTTP+JSON
		{"HTTP+JSON TASK_NOT_FOUND", wire.Evidence{Binding: httpjson, Version: "1.0", HTTPStatus: 404, Reason: "TASK_NOT_FOUND", Framing: httpjson, AnswerVersion: "1.0"}, wire.Served},
		{"HTTP+JSON 0.3-shaped answer to 1.0", wire.Evidence{Binding: httpjson, Version: "1.0", HTTPStatus: 404, Reason: "TASK_NOT_FOUND", Framing: httpjson, AnswerVersion: "0.3"}, wire.VersionMismatch},
		{"HTTP+JSON 0.3 a2a-js flat TaskNotFound", wire.Evidence{Binding: httpjson, Version: "0.3", HTTPStatus: 404, JSONRPCCode: -32001, Framing: httpjson, AnswerVersion: "0.3", Sent: true}, wire.Served},
		{"HTTP+JSON answered by JSON-RPC", wire.Evidence{Binding: httpjson, HTTPStatus: 200, JSONRPCCode: -32600, Framing: jsonrpc}, wire.WrongBinding},
		{"HTTP+JSON 501 UNIMPLEMENTED without ErrorInfo", wire.Evidence{Binding: httpjson, HTTPStatus: 501, Framing: httpjson}, wire.HandlerMissing},
		{"HTTP+JSON 501 METHOD_NOT_FOUND (a2a-go)", wire.Evidence{Binding: httpjson, HTTPStatus: 501, Reason: "METHOD_NOT_FOUND", Framing: httpjson, Sent: true}, wire.HandlerMissing},
		{"a plain web server's 501 page, after sending", wire.Evidence{Binding: jsonrpc, HTTPStatus: 501, ContentType: "text/html", Framing: wire.Unrecognised, Sent: true}, wire.NotFound},
		{"HTTP+JSON 501 with another A2A reason", wire.Evidence{Binding: httpjson, HTTPStatus: 501, Reason: "UNSUPPORTED_OPERATION", Framing: httpjson, Sent: true}, wire.AgentError},
		{"HTTP+JSON 1.0 message refused by a 0.3 handler", wire.Evidence{Binding: httpjson, Version: "1.0", HTTPStatus: 400, ContentType: "application/problem+json", Reason: "PARSE_ERROR", Sent: true}, wire.VersionMismatch},
		{"HTTP+JSON 0.3 message refused by a 0.3 handler", wire.Evidence{Binding: httpjson, Version: "0.3", HTTPStatus: 400, ContentType: "application/problem+json", Reason: "INVALID_PARAMS", Sent: true}, wire.AgentError},
		{"HTTP+JSON 0.3-shaped 500 stays ambiguous", wire.Evidence{Binding: httpjson, Version: "1.0", HTTPStatus: 500, ContentType: "application/problem+json", Sent: true}, wire.Ambiguous},

		// Hole 2(b): once the request was written, a garbled answer proves nothing.
		{"malformed status line after sending", wire.Evidence{Binding: jsonrpc, Sent: true,
			Err: errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP status code "2OO"`)}, wire.Ambiguous},
		{"raw HTTP/2 bytes after sending", wire.Evidence{Binding: jsonrpc, Sent: true,
			Err: errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\x00\x06\x04\x00\x00\x00\x00\x00"`)}, wire.Ambiguous},
		{"refused text after sending", wire.Evidence{Binding: jsonrpc, Sent: true, Err: errors.New("connection refused")}, wire.Ambiguous},
		{"HTML 200 after sending", wire.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 200, Framing: wire.Unrecognised, Body: "<html>"}, wire.Ambiguous},
		{"plain 404 after sending", wire.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 404, Framing: wire.Unrecognised}, wire.NotFound},
		{"415 after sending", wire.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 415}, wire.WrongBinding},
		{"-32601 after sending", wire.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 200, JSONRPCCode: -32601, Framing: jsonrpc}, wire.HandlerMissing},
		{"-32005 after sending", wire.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 200, JSONRPCCode: -32005, Framing: jsonrpc}, wire.WrongBinding},
		{"VersionNotSupported after sending", wire.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 200, JSONRPCCode: -32009, Framing: jsonrpc}, wire.VersionMismatch},
		{"504 after sending", wire.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 504}, wire.Ambiguous},

		// gRPC
		{"gRPC NOT_FOUND", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.NotFound, Framing: grpc}, wire.Served},
		{"gRPC unknown service", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unimplemented, GRPCMessage: "unknown service lf.a2a.v1.A2AService"}, wire.HandlerMissing},
		{"gRPC FAILED_PRECONDITION VERSION_NOT_SUPPORTED", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.FailedPrecondition, Reason: "VERSION_NOT_SUPPORTED"}, wire.VersionMismatch},
		{"gRPC UNIMPLEMENTED VERSION_NOT_SUPPORTED (1.0.0)", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unimplemented, Reason: "VERSION_NOT_SUPPORTED"}, wire.VersionMismatch},
		{"gRPC UNAUTHENTICATED", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unauthenticated}, wire.AuthRequired},
		{"gRPC PERMISSION_DENIED", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.PermissionDenied}, wire.AuthRequired},
		{"gRPC refused", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`}, wire.Refused},
		{"gRPC at an HTTP/1.1 server", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "error reading server preface: http2: failed reading the frame payload: http2: frame too large, note that the frame header looked like an HTTP/1.1 header"`}, wire.WrongBinding},
		{"gRPC at garbage", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "error reading server preface: http2: frame too large"`}, wire.Malformed},
		{"gRPC TLS to plaintext", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "transport: authentication handshake failed: tls: first record does not look like a TLS handshake"`}, wire.TLSMismatch},
		{"gRPC untrusted certificate", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate signed by unknown authority"`}, wire.TLSMismatch},
		{"gRPC at an HTTP/2 server: 404", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unimplemented,
			GRPCMessage: `unexpected HTTP status code received from server: 404 (Not Found); transport: received unexpected content-type "text/plain; charset=utf-8"`}, wire.WrongBinding},
		{"gRPC at an HTTP/2 server: 415 (the seed's first frame)", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unknown,
			GRPCMessage: `unexpected HTTP status code received from server: 415 (Unsupported Media Type)`}, wire.WrongBinding},
		{"gRPC behind an HTTP 401 proxy", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unauthenticated,
			GRPCMessage: `unexpected HTTP status code received from server: 401 (Unauthorized); transport: received unexpected content-type "text/plain"`}, wire.AuthRequired},
		{"gRPC reset by a peer that answers garbage", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: "write tcp 127.0.0.1:1->127.0.0.1:2: write: connection reset by peer"}, wire.Malformed},
		{"gRPC reset after sending", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable, Sent: true,
			GRPCMessage: "read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"}, wire.Ambiguous},
		{"gRPC deadline before sending", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.DeadlineExceeded, GRPCMessage: "context deadline exceeded"}, wire.Timeout},
		{"gRPC INTERNAL naming the task looked up", wire.Evidence{Binding: grpc, GRPC: true, Answered: true, Sent: true, GRPCCode: grpccodes.Internal,
			GRPCMessage: "Task not found: a2abind-probe-1", NamesTask: true}, wire.Served},
		{"gRPC INTERNAL not naming it", wire.Evidence{Binding: grpc, GRPC: true, Answered: true, Sent: true, GRPCCode: grpccodes.Internal,
			GRPCMessage: "Task not found: a2abind-probe-1"}, wire.Ambiguous},
		{"gRPC INTERNAL before sending", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Internal, GRPCMessage: "grpc: failed to unmarshal"}, wire.Malformed},

		// transport errors
		{"connection refused", wire.Evidence{Binding: jsonrpc, Err: refused}, wire.Refused},
		{"DNS failure", wire.Evidence{Binding: jsonrpc, Err: dns}, wire.Unreachable},
		{"name Go will not resolve", wire.Evidence{Binding: jsonrpc, Err: errors.New("dial tcp: address x.onion: no suitable address found")}, wire.Unreachable},
		{"deadline before sending", wire.Evidence{Binding: jsonrpc, Err: fmt.Errorf("post: %w", context.DeadlineExceeded)}, wire.Timeout},
		{"deadline after sending", wire.Evidence{Binding: jsonrpc, Err: fmt.Errorf("post: %w", context.DeadlineExceeded), Sent: true}, wire.Ambiguous},
		{"untrusted certificate", wire.Evidence{Binding: jsonrpc, Err: fmt.Errorf("tls: %w", x509.UnknownAuthorityError{})}, wire.TLSMismatch},
		{"HTTPS client, HTTP server", wire.Evidence{Binding: jsonrpc, Err: errors.New("http: server gave HTTP response to HTTPS client")}, wire.TLSMismatch},
		{"EOF before an answer", wire.Evidence{Binding: jsonrpc, Err: io.EOF}, wire.Malformed},
		{"HTTP/1.1 client at an h2c server", wire.Evidence{Binding: jsonrpc,
			Err: errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\x00\x06\x04\x00\x00\x00\x00\x00"`)}, wire.WrongBinding},
		{"HTTP/1.1 client at garbage", wire.Evidence{Binding: jsonrpc,
			Err: errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\xff\xfeNOT-A2A"`)}, wire.Malformed},
		{"nothing at all", wire.Evidence{}, wire.Served},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := wire.Classify(tt.ev)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Classify(%+v) = %v (%s), want %v", tt.ev, got, why, tt.want)
			}
			if why == "" && tt.ev != (wire.Evidence{}) {
				t.Errorf("Classify(%+v) gave no reason", tt.ev)
			}
		})
	}
}

// TestOutcome_Fallback checks the predicate delegate's fallback policy rests on.
func TestOutcome_Fallback(t *testing.T) {
	t.Parallel()
	reached := map[wire.Outcome]bool{wire.Served: true, wire.AgentError: true, wire.Ambiguous: true}
	for _, o := range wire.Outcomes() {
		if got := o.ReachedHandler(); got != reached[o] {
			t.Errorf("%s.ReachedHandler() = %v, want %v", o, got, reached[o])
		}
	}
}
