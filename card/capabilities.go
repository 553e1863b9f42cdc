package card

import (
	"encoding/json"
)

// Claim is what a card says about one capability.
type Claim struct {
	// Declared reports that the card claims the capability (the flag is true).
	Declared bool `json:"declared"`
	// Stated reports that the card states the flag at all, true or false; a flag left
	// out is false for every client.
	Stated bool `json:"stated"`
	// Source is the JSON path of the member that says so ("capabilities.streaming",
	// "supportsAuthenticatedExtendedCard"), "" when the card does not state it. When a
	// union card states it in both places, Source names the one that claims it.
	Source string `json:"source,omitempty"`
}

// Capabilities are the capability claims of a card, read exactly like every other
// member (a case variant such as "Streaming" is a stray, not read; lint reports it).
type Capabilities struct {
	// Streaming is capabilities.streaming: SendStreamingMessage and SubscribeToTask.
	Streaming Claim `json:"streaming"`
	// PushNotifications is capabilities.pushNotifications: the push-config methods.
	PushNotifications Claim `json:"pushNotifications"`
	// ExtendedAgentCard is v1.0 capabilities.extendedAgentCard or v0.3
	// supportsAuthenticatedExtendedCard (a union card: either); GetExtendedAgentCard.
	ExtendedAgentCard Claim `json:"extendedAgentCard"`
}

// claim reads a boolean member. A value that is not a JSON boolean is not read as a
// claim (protojson refuses such a card; encoding/json clients fail to read it).
func claim(raw json.RawMessage, source string) Claim {
	var b bool
	if raw == nil || json.Unmarshal(raw, &b) != nil {
		return Claim{}
	}
	return Claim{Declared: b, Stated: true, Source: source}
}

// either merges the claims of the two places a union card may state one capability:
// declared when either declares it.
func either(a, b Claim) Claim {
	switch {
	case a.Declared || !b.Stated:
		return a
	default:
		return b
	}
}

// capabilities reads the document's claims.
func (d *document) capabilities() Capabilities {
	caps := d.Capabilities // nil when absent or null: nothing stated
	return Capabilities{
		Streaming:         claim(caps["streaming"], "capabilities.streaming"),
		PushNotifications: claim(caps["pushNotifications"], "capabilities.pushNotifications"),
		ExtendedAgentCard: either(claim(caps["extendedAgentCard"], "capabilities.extendedAgentCard"),
			claim(d.SupportsExtendedCard, "supportsAuthenticatedExtendedCard")),
	}
}
