package telemetry

import (
	"strconv"

	"go.opentelemetry.io/otel/attribute"
)

// The attribute keys of a2abind's spans: the OpenTelemetry A2A proposal's and general
// semantic conventions' names where they name one, a2abind's own under "a2abind.".
// docs/telemetry.md lists each (a test keeps the two in step).
const (
	// A2A proposal and OpenTelemetry general conventions.
	A2AMethod      = attribute.Key("a2a.method.name")          // the A2A method, e.g. GetTask or tasks/get
	A2ATaskID      = attribute.Key("a2a.task.id")              // the task looked up or answered
	A2ATaskState   = attribute.Key("a2a.task.state")           // the task's state in the answer
	RPCSystem      = attribute.Key("rpc.system")               // jsonrpc, grpc or http
	RPCStatusCode  = attribute.Key("rpc.response.status_code") // gRPC code name or JSON-RPC error code
	HTTPStatusCode = attribute.Key("http.response.status_code")
	ServerAddress  = attribute.Key("server.address")
	ServerPort     = attribute.Key("server.port")
	URLFull        = attribute.Key("url.full")
	ErrorType      = attribute.Key("error.type") // the outcome or error class of a failed span

	// a2abind's own.
	Binding           = attribute.Key("a2abind.binding")               // the binding of the request: JSONRPC, GRPC, HTTP+JSON
	ProtocolVersion   = attribute.Key("a2abind.protocol_version")      // the A2A protocol version of the request
	Outcome           = attribute.Key("a2abind.outcome")               // the wire outcome (docs/taxonomy.md)
	Target            = attribute.Key("a2abind.target")                // the target as given: base URL, card URL or file
	CardURL           = attribute.Key("a2abind.card.url")              // where the card was read
	InterfaceURL      = attribute.Key("a2abind.interface.url")         // the declared interface's URL
	Interfaces        = attribute.Key("a2abind.interfaces")            // how many interfaces a card declares
	NotServed         = attribute.Key("a2abind.interfaces.not_served") // how many probed interfaces are not served
	Capability        = attribute.Key("a2abind.capability")            // the capability a call checks: streaming, pushNotifications, extendedAgentCard
	CapabilityOutcome = attribute.Key("a2abind.capability.outcome")    // what the call showed: served, not_served, auth_required, unknown
	ActualBinding     = attribute.Key("a2abind.actual_binding")        // the binding really answering at the interface's address
	OK                = attribute.Key("a2abind.ok")                    // the check passed (no error finding)

	// a2abind's own, of send, serve and guard.
	Attempts     = attribute.Key("a2abind.attempts")      // how many attempts a delegated call made
	Purpose      = attribute.Key("a2abind.purpose")       // why the delegate looked an interface up: confirm
	FallbackFrom = attribute.Key("a2abind.fallback.from") // the interface a call left (fallback event)
	FallbackTo   = attribute.Key("a2abind.fallback.to")   // the interface it tried next (fallback event)
	Evidence     = attribute.Key("a2abind.evidence")      // what proved the interface left was not served (fallback event)
	ExitCode     = attribute.Key("a2abind.exit_code")     // a command's exit status
	Rounds       = attribute.Key("a2abind.rounds")        // how many rounds the self-check took
	Round        = attribute.Key("a2abind.round")         // the guard round's number
	Published    = attribute.Key("a2abind.published")     // the card was published after the self-check or round
)

// Server is the server.address and server.port pair of host and port ("" are left out,
// and a port that is not a number too).
func Server(host, port string) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 2)
	if host != "" {
		kv = append(kv, ServerAddress.String(host))
	}
	if n, err := strconv.Atoi(port); err == nil {
		kv = append(kv, ServerPort.Int(n))
	}
	return kv
}
