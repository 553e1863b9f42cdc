package wire

// Outcome is what one declared interface really serves. The string values are a
// stable contract: `a2abind probe -o json` and `a2abind send -o json` print them.
type Outcome string

// The outcome taxonomy (docs/taxonomy.md).
const (
	// Served: the binding and version answer at that URL and an A2A handler is registered.
	Served Outcome = "served"
	// AuthRequired: something answers but asks for credentials; the binding is not confirmed.
	AuthRequired Outcome = "auth_required"
	// HandlerMissing: the right protocol answers but the A2A service is not registered.
	HandlerMissing Outcome = "handler_missing"
	// VersionMismatch: the binding is served, but for another protocol version.
	VersionMismatch Outcome = "version_mismatch"
	// WrongBinding: another binding is served there.
	WrongBinding Outcome = "wrong_binding"
	// NotFound: an HTTP server answers, but nothing is mounted at that path.
	NotFound Outcome = "not_found"
	// Refused: nothing listens at that address.
	Refused Outcome = "refused"
	// TLSMismatch: TLS declared and plaintext served, the reverse, or an untrusted certificate.
	TLSMismatch Outcome = "tls_mismatch"
	// Timeout: no answer within the budget.
	Timeout Outcome = "timeout"
	// Unreachable: DNS failure or no route.
	Unreachable Outcome = "unreachable"
	// Malformed: an answer that fits no binding.
	Malformed Outcome = "malformed"
	// AgentError: an A2A handler answered the call with an A2A error (task not found,
	// invalid params, ...). It proves the interface is served; delegate reports it for
	// calls, probe folds it into Served, except when the agent refused the lookup's
	// tenant (InvalidParams about the tenant): clients sending the card's tenant get the
	// same refusal, so probe reports AgentError with the tenant named.
	AgentError Outcome = "agent_error"
	// Ambiguous: the request may have reached a handler (reset or 5xx after sending).
	// Only delegate reports it.
	Ambiguous Outcome = "ambiguous"
	// Blocked: a2abind did not dial the address: the dial policy refuses it (unix:,
	// file:, userinfo, link-local, unspecified, cloud metadata, by name or once resolved;
	// see addr.DialPolicy). Nothing was sent, so delegate tries the next interface.
	Blocked Outcome = "blocked"
	// NoInterface: the client-impact verdict of a client that selects no interface from
	// the card at all (it cannot read the card's shape, or supports none of its
	// bindings). probe reports it only in a client-impact table, never for an interface.
	NoInterface Outcome = "no_interface"
)

// Outcomes lists every outcome Classify can return: the interface taxonomy of docs/taxonomy.md in
// its order, then AgentError and Ambiguous, which only calls produce, and Blocked.
// (NoInterface, a client-impact verdict, is not a classification and is not listed.)
func Outcomes() []Outcome {
	return []Outcome{Served, AuthRequired, HandlerMissing, VersionMismatch, WrongBinding, NotFound,
		Refused, TLSMismatch, Timeout, Unreachable, Malformed, AgentError, Ambiguous, Blocked}
}

// Reached reports an outcome that shows an A2A server answering at the interface:
// served, or auth_required (something answers and asks for credentials).
func (o Outcome) Reached() bool { return o == Served || o == AuthRequired }

// ReachedHandler reports whether an outcome means that the request reached an A2A
// handler, or may have: Served, AgentError and Ambiguous. Every other outcome is one
// Classify gives only with proof that no handler ran (an answer refusing the route,
// binding, version or credentials, or a failure before the request was fully written),
// so another interface may be tried after it (see Policy).
func (o Outcome) ReachedHandler() bool {
	switch o {
	case Served, AgentError, Ambiguous:
		return true
	}
	return false
}
