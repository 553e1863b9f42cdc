package wire

// Weight is how far an attempt's evidence shows that no handler ran: what a message
// (SendMessage, or SendStreamingMessage before its first event) may do after it.
type Weight string

// The weights of the fallback table (Rules).
const (
	// Proves: transport-level proof that no handler ran; a message moves on.
	Proves Weight = "proof"
	// NeedsConfirmation: an answer an A2A handler could also have given after running
	// the message (an agent may relay a downstream agent's error). A message moves on
	// only when the side-effect-free lookup on the same interface and version gets the
	// same "not here" answer (Policy.Walk's Walker.Lookup), and then only to an interface
	// whose lookup a handler answers; otherwise it is ambiguous.
	NeedsConfirmation Weight = "confirm"
	// Unproven: the request was written and nothing proves it reached no handler; a
	// message is not resent (unless the caller allows it).
	Unproven Weight = "ambiguous"
	// HandlerAnswered: an A2A handler answered; the call stops with its answer.
	HandlerAnswered Weight = "answered"
)

// Rule is one row of the fallback table: a kind of evidence, its weight and why.
type Rule struct {
	// Evidence names the kind of evidence.
	Evidence string
	// Weight is what a message may do after it.
	Weight Weight
	// Reason says why.
	Reason string
}

// kind indexes rules; Classify tags each verdict with one.
type kind int

const (
	kindNotWritten kind = iota
	kindTLSRefusal
	kindFraming
	kindGRPCUnknown
	kindA2ANotHere
	kindHTTPNotHere
	kindAuth
	kindUnproven
	kindAnswer
)

// rules is THE table of which evidence proves that no handler ran, which needs
// confirmation and which is ambiguous (docs/taxonomy.md shows it; a test keeps them equal).
var rules = [...]Rule{
	kindNotWritten: {"a failure before the request was fully written: refused, unreachable, blocked by the dial policy, a TLS handshake failure, a deadline before sending",
		Proves, "nothing reached a server that could run it"},
	kindTLSRefusal: {"a TLS server's refusal of plaintext (HTTP 400 \"HTTP request to an HTTPS server\")",
		Proves, "the TLS server answers before any handler sees the request"},
	kindFraming: {"a wrong binding shown by the framing itself: an HTTP/1.x answer to a gRPC call (the first bytes on the connection, to the HTTP/2 preface or the TLS ClientHello), a non-gRPC answer or content type under gRPC, another binding's error object",
		Proves, "a handler of the declared binding answers in that binding's framing; another protocol answered"},
	kindGRPCUnknown: {"grpc-go's own UNIMPLEMENTED \"unknown service\" / \"unknown method\" (no ErrorInfo)",
		Proves, "grpc-go answers it itself when no handler is registered for the method"},
	kindA2ANotHere: {"an A2A error that may mean \"not here\": VersionNotSupported, MethodNotFound, ContentTypeNotSupported, a JSON-RPC parse error, UNIMPLEMENTED without ErrorInfo",
		NeedsConfirmation, "an agent can run the message and then relay a downstream agent's A2A error, to every lookup too: a message moves on only to an interface whose lookup a handler answers"},
	kindHTTPNotHere: {"an HTTP status a handler could also produce: 404, 405, 408, 415, 501, a 3xx, a 4xx in the other protocol version's shape",
		NeedsConfirmation, "a handler (or a proxy after it) can answer these after running the message"},
	kindAuth: {"credentials refused: 401 / 403, UNAUTHENTICATED / PERMISSION_DENIED",
		NeedsConfirmation, "the call stops (the same credentials fail everywhere) unless the credentials were withheld there; then it moves on once confirmed"},
	kindUnproven: {"after the request was written: a reset, a deadline, a cut or garbled answer, a 5xx, INTERNAL / UNKNOWN / UNAVAILABLE from the server",
		Unproven, "the handler may have run; a read moves on, a message is not resent unless the caller allows it"},
	kindAnswer: {"an A2A answer: a result, TaskNotFound, another A2A error (InvalidParams, TaskNotCancelable, ...)",
		HandlerAnswered, "the agent answered"},
}

// Rules returns the fallback table: per kind of evidence, whether it proves that no
// handler ran, needs confirmation, or leaves the attempt ambiguous.
func Rules() []Rule { return append([]Rule(nil), rules[:]...) }
