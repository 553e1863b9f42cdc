package wire

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/internal/telemetry"
)

// rpcSystems is the rpc.system of each core binding.
var rpcSystems = map[a2a.TransportProtocol]string{
	a2a.TransportProtocolJSONRPC:  "jsonrpc",
	a2a.TransportProtocolGRPC:     "grpc",
	a2a.TransportProtocolHTTPJSON: "http",
}

// Attributes are the span attributes of what one request saw: a2abind.binding,
// a2abind.protocol_version, rpc.system, and what answered (rpc.response.status_code:
// the gRPC code name or the JSON-RPC error code; http.response.status_code).
func (ev Evidence) Attributes() []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 6)
	if ev.Binding != "" {
		kv = append(kv, telemetry.Binding.String(string(ev.Binding)))
	}
	if sys, ok := rpcSystems[ev.Binding]; ok {
		kv = append(kv, telemetry.RPCSystem.String(sys))
	}
	if ev.Version != "" {
		kv = append(kv, telemetry.ProtocolVersion.String(ev.Version))
	}
	switch {
	case ev.GRPC && ev.Answered:
		kv = append(kv, telemetry.RPCStatusCode.String(grpcCodeName(ev.GRPCCode.String())))
	case ev.JSONRPCCode != 0:
		kv = append(kv, telemetry.RPCStatusCode.String(strconv.Itoa(ev.JSONRPCCode)))
	}
	if ev.HTTPStatus != 0 {
		kv = append(kv, telemetry.HTTPStatusCode.Int(ev.HTTPStatus))
	}
	return kv
}

// grpcCodeName spells a grpc-go code name the way rpc.response.status_code does:
// NotFound -> NOT_FOUND, OK -> OK.
func grpcCodeName(s string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
		prev = r
	}
	return b.String()
}

// RecordOutcome sets a2abind.outcome on span and, unless the outcome shows an A2A
// server that answers (served, auth_required), error.type (the outcome) and an error
// status with detail, as the OpenTelemetry A2A proposal asks of a failed call.
func RecordOutcome(span trace.Span, o Outcome, detail string) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(telemetry.Outcome.String(string(o)))
	if !o.Reached() && o != "" {
		telemetry.Fail(span, string(o), detail)
	}
}
