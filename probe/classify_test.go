package probe_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	grpccodes "google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/probe"
)

// TestClassify is the wire classification table: one row per kind of evidence the
// probers, the server self-check and delegate produce.
func TestClassify(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	dns := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "agent.invalid", IsNotFound: true}}
	tests := []struct {
		name string
		ev   probe.Evidence
		want probe.Outcome
	}{
		// JSON-RPC
		{"JSON-RPC TaskNotFound", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32001, Framing: jsonrpc}, probe.Served},
		{"JSON-RPC TaskNotFound by reason", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32001, Reason: "TASK_NOT_FOUND", Framing: jsonrpc}, probe.Served},
		{"JSON-RPC result", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, Framing: jsonrpc}, probe.Served},
		{"JSON-RPC method not found", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32601, Framing: jsonrpc}, probe.HandlerMissing},
		{"JSON-RPC VersionNotSupported", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32009, Framing: jsonrpc}, probe.VersionMismatch},
		{"JSON-RPC VERSION_NOT_SUPPORTED reason", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32099, Reason: "VERSION_NOT_SUPPORTED"}, probe.VersionMismatch},
		{"a2a-js: -32005 with HTTP 200", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32005, Framing: jsonrpc}, probe.WrongBinding},
		{"a2a-java: HTTP 415", probe.Evidence{Binding: jsonrpc, HTTPStatus: 415, ContentType: "application/json"}, probe.WrongBinding},
		{"a2a-java: HTTP 415 with a JSON-RPC body", probe.Evidence{Binding: jsonrpc, HTTPStatus: 415, JSONRPCCode: -32005, Framing: jsonrpc}, probe.WrongBinding},
		{"JSON-RPC parse error", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32700, Framing: jsonrpc}, probe.Malformed},
		{"JSON-RPC invalid params is an A2A answer", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32602, Framing: jsonrpc}, probe.AgentError},
		{"JSON-RPC unknown A2A code", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32077}, probe.AgentError},
		{"a2a-go unauthenticated", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -31401}, probe.AuthRequired},
		{"JSON-RPC 200 but no JSON-RPC body", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, Framing: probe.Unrecognised, Body: "<html>"}, probe.Malformed},
		{"JSON-RPC answered by an HTTP+JSON TASK_NOT_FOUND 404", probe.Evidence{Binding: jsonrpc, HTTPStatus: 404, Reason: "TASK_NOT_FOUND", Framing: httpjson}, probe.NotFound},
		{"JSON-RPC answered by HTTP+JSON", probe.Evidence{Binding: jsonrpc, HTTPStatus: 400, Framing: httpjson}, probe.WrongBinding},

		// HTTP statuses
		{"401", probe.Evidence{Binding: jsonrpc, HTTPStatus: 401, Framing: probe.Unrecognised}, probe.AuthRequired},
		{"403", probe.Evidence{Binding: httpjson, HTTPStatus: 403}, probe.AuthRequired},
		{"plain 404", probe.Evidence{Binding: httpjson, HTTPStatus: 404, ContentType: "text/plain", Framing: probe.Unrecognised}, probe.NotFound},
		{"405", probe.Evidence{Binding: jsonrpc, HTTPStatus: 405, Framing: probe.Unrecognised}, probe.NotFound},
		{"redirect", probe.Evidence{Binding: jsonrpc, HTTPStatus: 307, Framing: probe.Unrecognised}, probe.NotFound},
		{"plaintext to a Go TLS server", probe.Evidence{Binding: jsonrpc, HTTPStatus: 400, Framing: probe.Unrecognised, Body: "Client sent an HTTP request to an HTTPS server.\n"}, probe.TLSMismatch},
		{"plaintext to nginx TLS", probe.Evidence{Binding: httpjson, HTTPStatus: 400, Body: "<center>The plain HTTP request was sent to HTTPS port</center>"}, probe.TLSMismatch},
		{"502 from a gateway", probe.Evidence{Binding: jsonrpc, HTTPStatus: 502, Framing: probe.Unrecognised}, probe.Ambiguous},
		{"504", probe.Evidence{Binding: jsonrpc, HTTPStatus: 504}, probe.Timeout},
		{"200, then the body cut by the deadline", probe.Evidence{Binding: httpjson, HTTPStatus: 200, Sent: true,
			Err: fmt.Errorf("read: %w", context.DeadlineExceeded)}, probe.Ambiguous},
		{"200, then the connection reset", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, Sent: true, Err: syscall.ECONNRESET}, probe.Ambiguous},
		{"200, then an unknown read error", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, Err: errors.New("read: something went wrong")}, probe.Ambiguous},
		{"200 with an unrecognised body cut short", probe.Evidence{Binding: jsonrpc, HTTPStatus: 200, Framing: probe.Unrecognised, Err: io.ErrUnexpectedEOF}, probe.Malformed},

		// HTTP+JSON
		{"HTTP+JSON TASK_NOT_FOUND", probe.Evidence{Binding: httpjson, Version: "1.0", HTTPStatus: 404, Reason: "TASK_NOT_FOUND", Framing: httpjson, AnswerVersion: "1.0"}, probe.Served},
		{"HTTP+JSON 0.3-shaped answer to 1.0", probe.Evidence{Binding: httpjson, Version: "1.0", HTTPStatus: 404, Reason: "TASK_NOT_FOUND", Framing: httpjson, AnswerVersion: "0.3"}, probe.VersionMismatch},
		{"HTTP+JSON 0.3 a2a-js flat TaskNotFound", probe.Evidence{Binding: httpjson, Version: "0.3", HTTPStatus: 404, JSONRPCCode: -32001, Framing: httpjson, AnswerVersion: "0.3", Sent: true}, probe.Served},
		{"HTTP+JSON answered by JSON-RPC", probe.Evidence{Binding: httpjson, HTTPStatus: 200, JSONRPCCode: -32600, Framing: jsonrpc}, probe.WrongBinding},
		{"HTTP+JSON 501 UNIMPLEMENTED without ErrorInfo", probe.Evidence{Binding: httpjson, HTTPStatus: 501, Framing: httpjson}, probe.HandlerMissing},
		{"HTTP+JSON 501 METHOD_NOT_FOUND (a2a-go)", probe.Evidence{Binding: httpjson, HTTPStatus: 501, Reason: "METHOD_NOT_FOUND", Framing: httpjson, Sent: true}, probe.HandlerMissing},
		{"a plain web server's 501 page, after sending", probe.Evidence{Binding: jsonrpc, HTTPStatus: 501, ContentType: "text/html", Framing: probe.Unrecognised, Sent: true}, probe.NotFound},
		{"HTTP+JSON 501 with another A2A reason", probe.Evidence{Binding: httpjson, HTTPStatus: 501, Reason: "UNSUPPORTED_OPERATION", Framing: httpjson, Sent: true}, probe.AgentError},
		{"HTTP+JSON 1.0 message refused by a 0.3 handler", probe.Evidence{Binding: httpjson, Version: "1.0", HTTPStatus: 400, ContentType: "application/problem+json", Reason: "PARSE_ERROR", Sent: true}, probe.VersionMismatch},
		{"HTTP+JSON 0.3 message refused by a 0.3 handler", probe.Evidence{Binding: httpjson, Version: "0.3", HTTPStatus: 400, ContentType: "application/problem+json", Reason: "INVALID_PARAMS", Sent: true}, probe.AgentError},
		{"HTTP+JSON 0.3-shaped 500 stays ambiguous", probe.Evidence{Binding: httpjson, Version: "1.0", HTTPStatus: 500, ContentType: "application/problem+json", Sent: true}, probe.Ambiguous},

		// Hole 2(b): once the request was written, a garbled answer proves nothing.
		{"malformed status line after sending", probe.Evidence{Binding: jsonrpc, Sent: true,
			Err: errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP status code "2OO"`)}, probe.Ambiguous},
		{"raw HTTP/2 bytes after sending", probe.Evidence{Binding: jsonrpc, Sent: true,
			Err: errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\x00\x06\x04\x00\x00\x00\x00\x00"`)}, probe.Ambiguous},
		{"refused text after sending", probe.Evidence{Binding: jsonrpc, Sent: true, Err: errors.New("connection refused")}, probe.Ambiguous},
		{"HTML 200 after sending", probe.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 200, Framing: probe.Unrecognised, Body: "<html>"}, probe.Ambiguous},
		{"plain 404 after sending", probe.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 404, Framing: probe.Unrecognised}, probe.NotFound},
		{"415 after sending", probe.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 415}, probe.WrongBinding},
		{"-32601 after sending", probe.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 200, JSONRPCCode: -32601, Framing: jsonrpc}, probe.HandlerMissing},
		{"-32005 after sending", probe.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 200, JSONRPCCode: -32005, Framing: jsonrpc}, probe.WrongBinding},
		{"VersionNotSupported after sending", probe.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 200, JSONRPCCode: -32009, Framing: jsonrpc}, probe.VersionMismatch},
		{"504 after sending", probe.Evidence{Binding: jsonrpc, Sent: true, HTTPStatus: 504}, probe.Ambiguous},

		// gRPC
		{"gRPC NOT_FOUND", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.NotFound, Framing: grpc}, probe.Served},
		{"gRPC unknown service", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unimplemented, GRPCMessage: "unknown service lf.a2a.v1.A2AService"}, probe.HandlerMissing},
		{"gRPC FAILED_PRECONDITION VERSION_NOT_SUPPORTED", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.FailedPrecondition, Reason: "VERSION_NOT_SUPPORTED"}, probe.VersionMismatch},
		{"gRPC UNIMPLEMENTED VERSION_NOT_SUPPORTED (1.0.0)", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unimplemented, Reason: "VERSION_NOT_SUPPORTED"}, probe.VersionMismatch},
		{"gRPC UNAUTHENTICATED", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unauthenticated}, probe.AuthRequired},
		{"gRPC PERMISSION_DENIED", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.PermissionDenied}, probe.AuthRequired},
		{"gRPC refused", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`}, probe.Refused},
		{"gRPC at an HTTP/1.1 server", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "error reading server preface: http2: failed reading the frame payload: http2: frame too large, note that the frame header looked like an HTTP/1.1 header"`}, probe.WrongBinding},
		{"gRPC at garbage", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "error reading server preface: http2: frame too large"`}, probe.Malformed},
		{"gRPC TLS to plaintext", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "transport: authentication handshake failed: tls: first record does not look like a TLS handshake"`}, probe.TLSMismatch},
		{"gRPC untrusted certificate", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: `connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate signed by unknown authority"`}, probe.TLSMismatch},
		{"gRPC at an HTTP/2 server: 404", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unimplemented,
			GRPCMessage: `unexpected HTTP status code received from server: 404 (Not Found); transport: received unexpected content-type "text/plain; charset=utf-8"`}, probe.WrongBinding},
		{"gRPC at an HTTP/2 server: 415 (the seed's first frame)", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unknown,
			GRPCMessage: `unexpected HTTP status code received from server: 415 (Unsupported Media Type)`}, probe.WrongBinding},
		{"gRPC behind an HTTP 401 proxy", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unauthenticated,
			GRPCMessage: `unexpected HTTP status code received from server: 401 (Unauthorized); transport: received unexpected content-type "text/plain"`}, probe.AuthRequired},
		{"gRPC reset by a peer that answers garbage", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable,
			GRPCMessage: "write tcp 127.0.0.1:1->127.0.0.1:2: write: connection reset by peer"}, probe.Malformed},
		{"gRPC reset after sending", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Unavailable, Sent: true,
			GRPCMessage: "read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"}, probe.Ambiguous},
		{"gRPC deadline before sending", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.DeadlineExceeded, GRPCMessage: "context deadline exceeded"}, probe.Timeout},
		{"gRPC INTERNAL before sending", probe.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.Internal, GRPCMessage: "grpc: failed to unmarshal"}, probe.Malformed},

		// transport errors
		{"connection refused", probe.Evidence{Binding: jsonrpc, Err: refused}, probe.Refused},
		{"DNS failure", probe.Evidence{Binding: jsonrpc, Err: dns}, probe.Unreachable},
		{"name Go will not resolve", probe.Evidence{Binding: jsonrpc, Err: errors.New("dial tcp: address x.onion: no suitable address found")}, probe.Unreachable},
		{"deadline before sending", probe.Evidence{Binding: jsonrpc, Err: fmt.Errorf("post: %w", context.DeadlineExceeded)}, probe.Timeout},
		{"deadline after sending", probe.Evidence{Binding: jsonrpc, Err: fmt.Errorf("post: %w", context.DeadlineExceeded), Sent: true}, probe.Ambiguous},
		{"untrusted certificate", probe.Evidence{Binding: jsonrpc, Err: fmt.Errorf("tls: %w", x509.UnknownAuthorityError{})}, probe.TLSMismatch},
		{"HTTPS client, HTTP server", probe.Evidence{Binding: jsonrpc, Err: errors.New("http: server gave HTTP response to HTTPS client")}, probe.TLSMismatch},
		{"EOF before an answer", probe.Evidence{Binding: jsonrpc, Err: io.EOF}, probe.Malformed},
		{"HTTP/1.1 client at an h2c server", probe.Evidence{Binding: jsonrpc,
			Err: errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\x00\x06\x04\x00\x00\x00\x00\x00"`)}, probe.WrongBinding},
		{"HTTP/1.1 client at garbage", probe.Evidence{Binding: jsonrpc,
			Err: errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "\x00\xff\xfeNOT-A2A"`)}, probe.Malformed},
		{"nothing at all", probe.Evidence{}, probe.Served},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := probe.Classify(tt.ev)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Classify(%+v) = %v (%s), want %v", tt.ev, got, why, tt.want)
			}
			if why == "" && tt.ev != (probe.Evidence{}) {
				t.Errorf("Classify(%+v) gave no reason", tt.ev)
			}
		})
	}
}

// TestOutcome_Fallback checks the predicate delegate's fallback policy rests on.
func TestOutcome_Fallback(t *testing.T) {
	t.Parallel()
	reached := map[probe.Outcome]bool{probe.Served: true, probe.AgentError: true, probe.Ambiguous: true}
	for _, o := range probe.Outcomes() {
		if got := o.ReachedHandler(); got != reached[o] {
			t.Errorf("%s.ReachedHandler() = %v, want %v", o, got, reached[o])
		}
	}
}
