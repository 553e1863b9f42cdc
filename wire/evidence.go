package wire

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"
)

// ExpectedTenantKey is the ErrorInfo metadata key under which a2abind's server names
// the tenant it serves when it refuses a request's, and the probe and delegate read it.
const ExpectedTenantKey = "expectedTenant"

// Evidence is what one request saw on the wire. Probes fill it from raw HTTP statuses,
// JSON-RPC error objects and gRPC status codes; delegate fills it from the same layers
// under a2a-go's transports. Classify turns it into an Outcome, so one table decides
// what a failure means everywhere.
type Evidence struct {
	// Binding is the binding the request spoke.
	Binding a2a.TransportProtocol
	// Err is a transport failure (dial, TLS, read, deadline); nil when an answer arrived.
	Err error
	// Sent reports that the request was fully written (httptrace WroteRequest; for gRPC,
	// the request headers handed to a live connection). Once it was, only an answer that
	// proves it reached no handler keeps a "never reached" outcome (see Classify).
	Sent bool
	// HTTPStatus is the HTTP status of the answer, 0 if none.
	HTTPStatus int
	// ContentType is the answer's media type.
	ContentType string
	// JSONRPCCode is the JSON-RPC error code of the answer, 0 if none; for HTTP+JSON,
	// the A2A error code of a v0.3 error body that carries one (a2a-js answers
	// {"code":-32001,"message":...}).
	JSONRPCCode int
	// Reason is the google.rpc.ErrorInfo reason of an A2A error, if the answer carried one.
	Reason string
	// Answered reports that the server itself answered at the protocol level: for gRPC,
	// response headers or trailers arrived (grpc-go also makes statuses up client-side,
	// for dial, TLS and preface failures: those are not answers). An HTTP status is
	// always an answer. Once the server answered, the text of its status message is
	// never read as a connection failure.
	Answered bool
	// GRPC reports that a gRPC status was received; GRPCCode and GRPCMessage hold it.
	GRPC        bool
	GRPCCode    codes.Code
	GRPCMessage string
	// Version is the protocol version the request spoke ("1.0", "0.3"), if known.
	Version string
	// AnswerVersion is the protocol version the answer's shape belongs to, when the
	// caller could tell (e.g. a2a-go's v0.3 HTTP+JSON errors are application/problem+json).
	AnswerVersion string
	// Framing is the binding whose framing the answer's body has, when the caller parsed
	// it: the request's own binding, another one (the answer proves another binding is
	// served there), or Unrecognised. Empty means the body was not inspected.
	Framing a2a.TransportProtocol
	// Body is the start of the answer's body, for answers recognised by their text
	// (a TLS server's plaintext rejection, for example); for a gRPC call that failed
	// unanswered, the first bytes the server sent on the connection (GRPCCall.Fill).
	Body string
	// Message is the A2A error's message, as the answer carried it (ReadAnswer, or the
	// gRPC status message).
	Message string
	// NamesTask reports that the answer's error message names the task the request asked
	// for (the probe's random lookup id): a handler read the request and looked that task
	// up, whatever code it answered with (a2a-js 0.3.14's gRPC server answers TaskNotFound
	// as INTERNAL "Task not found: <id>").
	NamesTask bool
	// ExpectedTenant is the tenant an agent refusing the request's tenant names (the
	// ErrorInfo metadata ExpectedTenantKey of a2abind's server), if the answer said.
	ExpectedTenant string
}

// Unrecognised is the Framing of an answer that fits no binding.
const Unrecognised a2a.TransportProtocol = "unrecognised"

// TenantRefused reports whether the answer is an agent refusing the tenant the request
// carried: an InvalidParams answer (JSON-RPC -32602, gRPC INVALID_ARGUMENT, HTTP+JSON 400
// or ErrorInfo INVALID_PARAMS) that names the tenant it expects (ErrorInfo metadata
// expectedTenant) or, from agents that only say so in words, whose message speaks of
// a tenant. Other InvalidParams answers prove a handler is there and nothing more.
func (ev Evidence) TenantRefused() bool {
	invalid := ev.JSONRPCCode == -32602 || ev.Reason == reasons[a2a.ErrInvalidParams] ||
		ev.GRPC && ev.GRPCCode == codes.InvalidArgument ||
		!ev.GRPC && ev.JSONRPCCode == 0 && ev.HTTPStatus == 400
	return invalid && (ev.ExpectedTenant != "" || strings.Contains(strings.ToLower(ev.Message), "tenant"))
}

// CertificateFailure reports whether a TLS failure is about the certificate (an
// unknown authority, another host name, expired), not the TLS mode: from the typed
// error, or, for grpc-go's own client-side statuses (only text), from their text. A
// status the server answered is never read this way.
func (ev Evidence) CertificateFailure() bool {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
	)
	if err := ev.Err; err != nil && (errors.As(err, &unknown) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &verify)) {
		return true
	}
	if ev.GRPC && !ev.Answered {
		m := strings.ToLower(ev.GRPCMessage)
		return strings.Contains(m, "x509: ") || strings.Contains(m, "certificate")
	}
	return false
}
