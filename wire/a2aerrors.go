package wire

import (
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/errordetails"
	rpccode "google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
)

// A2AError is one row of the A2A error table: an a2a-go error sentinel, its code on
// each binding (A2A specification §9.5 and a2a-go's own mappings), and what it means
// as the answer to a request (the outcome Classify gives).
type A2AError struct {
	// Err is the a2a-go sentinel (a2a.ErrTaskNotFound, ...); its ErrorInfo reason is
	// a2a.ErrorReason(Err).
	Err error
	// JSONRPC is the JSON-RPC error code.
	JSONRPC int
	// GRPC is the gRPC status code.
	GRPC codes.Code
	// HTTP is the HTTP+JSON status.
	HTTP int
	// Outcome is what the error means as an answer: Served for TaskNotFound (the
	// lookup's random id), a "not here" outcome for the refusals, AgentError otherwise.
	Outcome Outcome
}

// a2aErrors is THE A2A error table, keyed by a2a-go's sentinels.
var a2aErrors = []A2AError{
	{a2a.ErrParseError, -32700, codes.InvalidArgument, 400, Malformed},
	{a2a.ErrInvalidRequest, -32600, codes.InvalidArgument, 400, AgentError},
	{a2a.ErrMethodNotFound, -32601, codes.Unimplemented, 501, HandlerMissing},
	{a2a.ErrInvalidParams, -32602, codes.InvalidArgument, 400, AgentError},
	{a2a.ErrInternalError, -32603, codes.Internal, 500, AgentError},
	{a2a.ErrServerError, -32000, codes.Internal, 500, AgentError},
	{a2a.ErrTaskNotFound, -32001, codes.NotFound, 404, Served},
	{a2a.ErrTaskNotCancelable, -32002, codes.FailedPrecondition, 400, AgentError},
	{a2a.ErrPushNotificationNotSupported, -32003, codes.FailedPrecondition, 400, AgentError},
	{a2a.ErrUnsupportedOperation, -32004, codes.FailedPrecondition, 400, AgentError},
	{a2a.ErrUnsupportedContentType, -32005, codes.InvalidArgument, 400, WrongBinding},
	{a2a.ErrInvalidAgentResponse, -32006, codes.Internal, 500, AgentError},
	{a2a.ErrExtendedCardNotConfigured, -32007, codes.FailedPrecondition, 400, AgentError},
	{a2a.ErrExtensionSupportRequired, -32008, codes.FailedPrecondition, 400, AgentError},
	{a2a.ErrVersionNotSupported, -32009, codes.FailedPrecondition, 400, VersionMismatch},
	{a2a.ErrUnauthenticated, -31401, codes.Unauthenticated, 401, AuthRequired},
	{a2a.ErrUnauthorized, -31403, codes.PermissionDenied, 403, AuthRequired},
}

// A2AErrors returns the A2A error table.
func A2AErrors() []A2AError { return append([]A2AError(nil), a2aErrors...) }

// ErrorFor returns the table's row for err (errors.Is against each sentinel).
func ErrorFor(err error) (A2AError, bool) {
	for _, e := range a2aErrors {
		if errors.Is(err, e.Err) {
			return e, true
		}
	}
	return A2AError{}, false
}

// ErrorOf returns the table's row for an error answer: ErrorIn of the evidence the
// answer fills (its JSON-RPC or v0.3 flat code, else its ErrorInfo reason).
func ErrorOf(a Answer) (A2AError, bool) {
	var ev Evidence
	a.Fill(&ev)
	return ErrorIn(ev)
}

// Reason is the row's google.rpc.ErrorInfo reason, a2a-go's name for it.
func (e A2AError) Reason() string {
	if r, ok := reasons[e.Err]; ok {
		return r
	}
	return a2a.ErrorReason(e.Err)
}

// reasons is a2a.ErrorReason of each row's sentinel, asked once: a2a-go finds a
// sentinel's reason with errors.Is over its own map, on every call, and every lookup's
// reading asks.
var reasons = func() map[error]string {
	m := make(map[error]string, len(a2aErrors))
	for _, e := range a2aErrors {
		m[e.Err] = a2a.ErrorReason(e.Err)
	}
	return m
}()

// GRPCName is the row's gRPC code as google.rpc.Status names it ("FAILED_PRECONDITION"),
// for the "status" member of an HTTP+JSON error body.
func (e A2AError) GRPCName() string { return rpccode.Code(e.GRPC).String() }

// ErrorInfo is the row's ErrorInfo for JSON bodies (JSON-RPC error data, google.rpc.Status
// details), built with a2a-go's errordetails in a2a.ProtocolDomain.
func (e A2AError) ErrorInfo(metadata map[string]string) *errordetails.Typed {
	return errordetails.NewErrorInfo(e.Reason(), a2a.ProtocolDomain, metadata)
}

// ErrorInfoProto is the row's ErrorInfo as a gRPC status detail.
func (e A2AError) ErrorInfoProto(metadata map[string]string) *errdetails.ErrorInfo {
	return &errdetails.ErrorInfo{Reason: e.Reason(), Domain: a2a.ProtocolDomain, Metadata: metadata}
}

// byJSONRPC and byReason index the table for Classify.
var byJSONRPC, byReason = func() (map[int]A2AError, map[string]A2AError) {
	code, reason := map[int]A2AError{}, map[string]A2AError{}
	for _, e := range a2aErrors {
		code[e.JSONRPC], reason[e.Reason()] = e, e
	}
	reason["PERMISSION_DENIED"] = reason[a2a.ErrorReason(a2a.ErrUnauthorized)] // google.rpc's name, some servers use it
	return code, reason
}()

// reasonOutcome is the outcome an ErrorInfo reason decides on its own: a lookup's
// TaskNotFound, a refusal of the version, method, content type or credentials. Other
// reasons leave the decision to the status code.
func reasonOutcome(reason string) (Outcome, bool) {
	e, ok := byReason[reason]
	if !ok || e.Outcome == AgentError || e.Outcome == Malformed {
		return "", false
	}
	return e.Outcome, true
}
