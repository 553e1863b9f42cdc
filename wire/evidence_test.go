package wire_test

import (
	"crypto/x509"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/wire"
)

// TestEvidenceTenantRefused: a tenant refusal is read from typed evidence (the ErrorInfo
// metadata expectedTenant that a2abind's server sends), or from an InvalidParams
// message that speaks of a tenant; nothing else is one.
func TestEvidenceTenantRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		ev   wire.Evidence
		want bool
	}{
		{"JSON-RPC InvalidParams naming the tenant in metadata", wire.Evidence{JSONRPCCode: -32602, ExpectedTenant: "acme"}, true},
		{"gRPC INVALID_ARGUMENT speaking of a tenant", wire.Evidence{GRPC: true, GRPCCode: codes.InvalidArgument, Message: "unknown Tenant"}, true},
		{"HTTP+JSON 400 with reason INVALID_PARAMS and metadata", wire.Evidence{HTTPStatus: 400, Reason: "INVALID_PARAMS", ExpectedTenant: "a/b"}, true},
		{"InvalidParams about something else", wire.Evidence{JSONRPCCode: -32602, Message: "message.parts is empty"}, false},
		{"TaskNotFound mentioning a tenant", wire.Evidence{JSONRPCCode: -32001, Message: "no task in tenant x"}, false},
		{"gRPC NOT_FOUND with metadata", wire.Evidence{GRPC: true, GRPCCode: codes.NotFound, ExpectedTenant: "x"}, false},
	} {
		if got := tt.ev.TenantRefused(); got != tt.want {
			t.Errorf("%s: TenantRefused() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestEvidenceCertificateFailure: a certificate failure is read from the typed TLS
// error, or from grpc-go's own client-side status text; a status the server answered
// is never read as one, whatever its text.
func TestEvidenceCertificateFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		ev   wire.Evidence
		want bool
	}{
		{"unknown authority", wire.Evidence{Err: fmt.Errorf("get: %w", x509.UnknownAuthorityError{})}, true},
		{"host name", wire.Evidence{Err: x509.HostnameError{Host: "h", Certificate: &x509.Certificate{}}}, true},
		{"grpc-go's handshake text", wire.Evidence{GRPC: true, GRPCCode: codes.Unavailable,
			GRPCMessage: "connection error: desc = \"transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate signed by unknown authority\""}, true},
		{"the server's text", wire.Evidence{GRPC: true, Answered: true, GRPCCode: codes.Internal, GRPCMessage: "tool call failed: x509: certificate signed by unknown authority"}, false},
		{"an HTTP error whose text says certificate", wire.Evidence{Err: errors.New("certificate of deposit")}, false},
		{"TLS mode, not the certificate", wire.Evidence{Err: errors.New("http: server gave HTTP response to HTTPS client")}, false},
	} {
		if got := tt.ev.CertificateFailure(); got != tt.want {
			t.Errorf("%s: CertificateFailure() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
