package lab

import (
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
)

// Agents whose cards claim capabilities, and the lies about them: each one is the
// healthy three-binding v1.0 agent (JSON-RPC, gRPC, HTTP+JSON) with another card and
// another a2a-go handler configuration.

// WithHandlerOptions passes a2a-go request-handler options to a2asrv.NewHandler: a
// push-config store and sender, an extended card, capability checks.
func WithHandlerOptions(opts ...a2asrv.RequestHandlerOption) Option {
	return func(c *config) { c.handlerOpts = append(c.handlerOpts, opts...) }
}

// WithOpenBinding serves binding b without the token WithAuth asks on the others.
func WithOpenBinding(b a2a.TransportProtocol) Option {
	return func(c *config) {
		if c.open == nil {
			c.open = map[a2a.TransportProtocol]bool{}
		}
		c.open[b] = true
	}
}

// claiming is the healthy agent with a card whose capabilities member is caps and, when
// secured, a bearer security scheme.
func claiming(name string, caps map[string]any, secured bool, opts ...Option) []Option {
	return append(healthy(name, func(c map[string]any) {
		c["capabilities"] = caps
		if secured {
			c["securitySchemes"] = map[string]any{"bearer": map[string]any{
				"httpAuthSecurityScheme": map[string]any{"scheme": "Bearer"}}}
			c["securityRequirements"] = []map[string]any{{"schemes": map[string]any{"bearer": map[string]any{"list": []string{}}}}}
		}
	}), opts...)
}

// StreamingRefused declares streaming, and its handler refuses it: a2a-go's capability
// checks with streaming off answer SubscribeToTask (and SendStreamingMessage) with
// UnsupportedOperation on every binding.
func StreamingRefused() []Option {
	return claiming("streaming-refused", map[string]any{"streaming": true}, false,
		WithHandlerOptions(a2asrv.WithCapabilityChecks(&a2a.AgentCapabilities{})))
}

// PushWithoutStore declares push notifications, and its handler has no push-config
// store: the push-config methods answer PushNotificationNotSupported.
func PushWithoutStore() []Option {
	return claiming("push-without-store", map[string]any{"streaming": true, "pushNotifications": true}, false)
}

// ExtendedCardMissing declares the extended card, and its handler has none:
// GetExtendedAgentCard answers ExtendedAgentCardNotConfigured.
func ExtendedCardMissing() []Option {
	return claiming("extended-card-missing", map[string]any{"streaming": true, "extendedAgentCard": true}, false)
}

// OpenBinding declares a bearer scheme; JSON-RPC and HTTP+JSON ask for the token, gRPC
// answers without it: a bypass of the protected bindings.
func OpenBinding(token string) []Option {
	return claiming("open-binding", map[string]any{"streaming": true}, true,
		WithAuth(token), WithOpenBinding(GRPC))
}

// CapableProtected is Capable with a bearer security scheme declared and the token asked
// on every binding: without the token the extended card's 401 is what the specification
// asks of it, and the other calls cannot tell.
func CapableProtected(token string) []Option {
	return append(capable(true), WithAuth(token))
}

// Capable serves everything it declares and declares everything it serves: streaming,
// push notifications (a2a-go's in-memory config store and HTTP sender) and the extended
// card (the public card's name with " (extended)").
func Capable() []Option { return capable(false) }

func capable(secured bool) []Option {
	ext := &a2a.AgentCard{Name: "capable (extended)", Description: "the extended card", Version: "1.0.0",
		Capabilities: a2a.AgentCapabilities{Streaming: true, PushNotifications: true, ExtendedAgentCard: true}}
	return claiming("capable", map[string]any{"streaming": true, "pushNotifications": true, "extendedAgentCard": true}, secured,
		WithHandlerOptions(
			a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(&push.HTTPSenderConfig{})),
			a2asrv.WithExtendedAgentCard(ext)))
}
