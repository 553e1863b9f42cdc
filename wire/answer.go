package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/wording"
)

// Answer is what the body of an answer says: THE reading of A2A answer bodies, for
// probe's lookups and the delegate's calls alike (ReadAnswer).
type Answer struct {
	// Framing is the binding whose framing the body has (JSONRPC for a JSON-RPC 2.0
	// response, HTTPJSON for a google.rpc.Status or a v0.3 flat error), Unrecognised
	// for a body that fits none, "" for an empty body.
	Framing a2a.TransportProtocol
	// Result reports a JSON-RPC success response.
	Result bool
	// Code is the JSON-RPC error code, the A2A code of a v0.3 flat error, or the "code"
	// of a google.rpc.Status (an HTTP status there).
	Code int
	// Status is the google.rpc.Status "status" ("NOT_FOUND").
	Status string
	// Message is the error's message.
	Message string
	// Reason is the google.rpc.ErrorInfo's, and ExpectedTenant its metadata's
	// "expectedTenant" (the tenant an agent refusing the request's names), read as
	// a2a-go's errordetails reads them (errorinfo.go).
	Reason, ExpectedTenant string
	// Flat reports a v0.3 flat error body ({"code":-32001,"message":...}, a2a-js).
	Flat bool
	// Version is the protocol version the shape belongs to, when it tells: a v0.3 flat
	// error or application/problem+json (a2a-go's v0.3 REST) is 0.3; a google.rpc.Status
	// with an A2A ErrorInfo in (a2a+)json is 1.0.
	Version string
}

// ReadAnswer reads an answer body of media type contentType: a JSON-RPC 2.0 response,
// an HTTP+JSON google.rpc.Status error, a v0.3 flat error; for text/event-stream, the
// first event's data.
func ReadAnswer(contentType string, body []byte) Answer {
	mt := MediaType(contentType)
	if mt == "text/event-stream" {
		for line := range bytes.Lines(body) {
			if d, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
				body = d
				break
			}
		}
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return Answer{}
	}
	if mayBeJSONRPC(body) {
		if a, err := ParseJSONRPC(body); err == nil {
			return a
		}
	}
	if a, ok := ParseStatus(body); ok {
		switch {
		case mt == "application/problem+json":
			a.Version = card.V03
		case a.Reason != "" && (mt == "application/json" || mt == "application/a2a+json"):
			a.Version = card.V1
		}
		return a
	}
	if a, ok := ParseFlatError(body); ok {
		return a
	}
	return Answer{Framing: Unrecognised}
}

// MediaType is the media type of a Content-Type value as mime.ParseMediaType reads it
// (lower-cased, without parameters; "" when it does not parse). A bare lower-case
// type/subtype of token characters, what the probe's own reading of a header hands on,
// is its own media type and is not parsed again (TestMediaTypeAgreesWithMime).
func MediaType(contentType string) string {
	slash := 0
	for i := 0; i < len(contentType); i++ {
		c := contentType[i]
		switch {
		case c == '/':
			slash++
		case c <= ' ' || c >= 0x7f || c >= 'A' && c <= 'Z' || strings.IndexByte(`()<>@,;:\"[]?=`, c) >= 0:
			slash = 2 // not bare: parse it
		}
	}
	if slash == 1 && contentType[0] != '/' && contentType[len(contentType)-1] != '/' {
		return contentType
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt
}

// mayBeJSONRPC reports whether body may be a JSON-RPC 2.0 response, which needs a
// member whose value reads "2.0": without a backslash escape in it, such a string is
// written "2.0" in the body. A body with neither (a google.rpc.Status, a flat error)
// is not JSON-RPC, and ReadAnswer reads it once, in its own shape, instead of twice.
func mayBeJSONRPC(body []byte) bool {
	return bytes.Contains(body, []byte(`"2.0"`)) || bytes.IndexByte(body, '\\') >= 0
}

// Fill records the answer in ev.
func (a Answer) Fill(ev *Evidence) {
	ev.Framing = a.Framing
	if a.Framing == a2a.TransportProtocolJSONRPC || a.Flat {
		ev.JSONRPCCode = a.Code
	}
	if a.Reason != "" {
		ev.Reason = a.Reason
	}
	ev.Message, ev.ExpectedTenant = a.Message, a.ExpectedTenant
	if a.Version != "" {
		ev.AnswerVersion = a.Version
	}
}

// errNotJSONRPC is ParseJSONRPC's error for anything that is not a JSON-RPC 2.0 response.
var errNotJSONRPC = errors.New("not a JSON-RPC 2.0 response")

// ParseJSONRPC reads a JSON-RPC 2.0 response object: "jsonrpc":"2.0" and exactly one of
// result or error (with a non-zero integer code). The ErrorInfo comes from error.data
// (v1.0: an array of typed objects; v0.3: any value).
func ParseJSONRPC(b []byte) (Answer, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return Answer{}, errNotJSONRPC
	}
	var doc jsonrpcDoc
	if !doc.scan(b) { // envelope.go
		var err error
		if doc, err = decode[jsonrpcDoc](b); err != nil {
			return Answer{}, fmt.Errorf("%w: %v", errNotJSONRPC, err)
		}
	}
	if doc.JSONRPC != "2.0" {
		return Answer{}, fmt.Errorf("%w: jsonrpc is %q", errNotJSONRPC, doc.JSONRPC)
	}
	hasResult := len(doc.Result) > 0
	switch {
	case doc.Error != nil && !hasResult:
		code, err := strconv.ParseInt(doc.Error.Code.String(), 10, 32)
		if err != nil || code == 0 {
			return Answer{}, fmt.Errorf("%w: error code %q", errNotJSONRPC, doc.Error.Code)
		}
		a := Answer{Framing: a2a.TransportProtocolJSONRPC, Code: int(code), Message: doc.Error.Message}
		a.Reason, a.ExpectedTenant = errorInfo(doc.Error.Data)
		return a, nil
	case hasResult && doc.Error == nil:
		return Answer{Framing: a2a.TransportProtocolJSONRPC, Result: true}, nil
	}
	return Answer{}, fmt.Errorf("%w: needs exactly one of result and error", errNotJSONRPC)
}

// decode is encoding/json's decoding of an envelope that scan does not read, in a
// function of its own so that the scanned envelope stays on its caller's stack.
func decode[T any](b []byte) (T, error) {
	var doc T
	err := json.Unmarshal(b, &doc)
	return doc, err
}

// ParseStatus reads an HTTP+JSON error body: {"error":{"code","status","message",
// "details":[ErrorInfo...]}} with an HTTP status code. ok is false for anything else.
func ParseStatus(b []byte) (Answer, bool) {
	var doc statusDoc
	if !doc.scan(b) { // envelope.go
		var err error
		if doc, err = decode[statusDoc](b); err != nil {
			return Answer{}, false
		}
	}
	if doc.Error == nil || doc.Error.Code == nil {
		return Answer{}, false
	}
	code, err := doc.Error.Code.Int64()
	if err != nil || code < 0 || code > 999 {
		return Answer{}, false
	}
	a := Answer{Framing: a2a.TransportProtocolHTTPJSON, Code: int(code), Status: doc.Error.Status, Message: doc.Error.Message}
	a.Reason, a.ExpectedTenant = errorInfo(doc.Error.Details)
	return a, true
}

// ParseFlatError reads a flat v0.3 REST error body (@a2a-js/sdk's v0.3 REST): a JSON
// object with an integer code in the JSON-RPC error range (-32768 to -31000, which holds
// A2A's and a2a-go's codes) and a string message, and no JSON-RPC envelope. ok is false
// for anything else.
func ParseFlatError(b []byte) (Answer, bool) {
	var doc struct {
		JSONRPC *json.RawMessage `json:"jsonrpc"`
		Error   *json.RawMessage `json:"error"`
		Code    *json.Number     `json:"code"`
		Message *string          `json:"message"`
	}
	if json.Unmarshal(b, &doc) != nil || doc.JSONRPC != nil || doc.Error != nil || doc.Code == nil || doc.Message == nil {
		return Answer{}, false
	}
	code, err := strconv.ParseInt(doc.Code.String(), 10, 32)
	if err != nil || code < -32768 || code > -31000 {
		return Answer{}, false
	}
	return Answer{Framing: a2a.TransportProtocolHTTPJSON, Code: int(code), Message: *doc.Message, Flat: true, Version: card.V03}, true
}

// String renders the answer for a detail line.
func (a Answer) String() string {
	if a.Framing == a2a.TransportProtocolJSONRPC && a.Result {
		return "JSON-RPC result"
	}
	// Built in one buffer: every lookup's evidence has one.
	var buf [160]byte
	b := buf[:0]
	switch {
	case a.Framing == a2a.TransportProtocolJSONRPC:
		b = strconv.AppendInt(append(b, "JSON-RPC error "...), int64(a.Code), 10)
		if a.Reason != "" {
			b = append(append(b, ' '), a.Reason...)
		}
		if a.Message != "" {
			b = AppendQuote(append(b, ' '), wording.Truncate(a.Message, 100))
		}
	case a.Flat:
		b = strconv.AppendInt(append(b, "error "...), int64(a.Code), 10)
		b = AppendQuote(append(b, ' '), wording.Truncate(a.Message, 100))
	case a.Framing == a2a.TransportProtocolHTTPJSON:
		b = strconv.AppendInt(append(b, "error "...), int64(a.Code), 10)
		b = append(append(b, ' '), a.Status...)
		if a.Reason != "" {
			b = append(append(b, ' '), a.Reason...)
		}
		if a.Message != "" {
			b = AppendQuote(append(b, ' '), wording.Truncate(a.Message, 100))
		}
	default:
		return ""
	}
	return string(b)
}

// GRPCErrorInfo reads the google.rpc.ErrorInfo (reason and metadata) among a gRPC
// status's details.
func GRPCErrorInfo(st *status.Status) (string, map[string]string) {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() != "" {
			return info.GetReason(), info.GetMetadata()
		}
	}
	return "", nil
}

// FillGRPC records a gRPC status in ev: its code and message, and its ErrorInfo's reason
// and expected tenant (probe's lookups and the delegate's calls alike).
func FillGRPC(ev *Evidence, st *status.Status) {
	ev.GRPCCode, ev.GRPCMessage, ev.Message = st.Code(), st.Message(), st.Message()
	var info map[string]string
	ev.Reason, info = GRPCErrorInfo(st)
	ev.ExpectedTenant = info[ExpectedTenantKey]
}

// AppendQuote appends s quoted for evidence text: in back quotes when s holds double
// quotes and nothing a back-quoted string cannot (grpc-go's `desc = "..."` messages),
// so that a log line quoting the evidence again escapes its quotes once, not twice;
// otherwise as strconv.Quote does.
func AppendQuote(b []byte, s string) []byte {
	if strings.Contains(s, `"`) && strconv.CanBackquote(s) {
		return append(append(append(b, '`'), s...), '`')
	}
	return strconv.AppendQuote(b, s)
}
