package probe

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/wire"
)

// mediaTypeNote says what a served HTTP+JSON interface's answer media type means for
// clients: A2A 1.0.1 says application/a2a+json SHOULD be used, but a2a-go v2.3.1's REST
// client reads an error body only when it is application/json (internal/rest
// FromRESTError), so against an agent answering application/a2a+json its users get "server
// error" instead of the agent's A2A error. "" when there is nothing to say.
//
// Which request media types an agent accepts is not probed: the only side-effect-free
// HTTP+JSON requests with a body (CancelTask or SubscribeToTask of a random id) make
// a2a-go v2.3.1 agents log an ERROR per request.
func mediaTypeNote(binding a2a.TransportProtocol, ev wire.Evidence) string {
	if binding != a2a.TransportProtocolHTTPJSON || ev.ContentType != "application/a2a+json" {
		return ""
	}
	return "answers in application/a2a+json (A2A 1.0.1): a2a-go v2.3.1's REST client reads an error body only as " +
		"application/json, so its users see \"server error\" instead of the agent's A2A error (a2abind's delegate reads both)"
}
