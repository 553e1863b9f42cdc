package card

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCapabilities: the card's capability claims in v1.0, v0.3 and union cards, member
// names matched exactly (a case variant or proto name is not a claim).
func TestCapabilities(t *testing.T) {
	v1 := func(caps string) string {
		return `{"name":"a","supportedInterfaces":[{"url":"http://h/a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":` + caps + `}`
	}
	v03 := func(rest string) string {
		return `{"name":"a","url":"http://h/a","protocolVersion":"0.3.0"` + rest + `}`
	}
	on := func(src string) Claim { return Claim{Declared: true, Stated: true, Source: src} }
	off := func(src string) Claim { return Claim{Stated: true, Source: src} }
	for _, tt := range []struct {
		name, doc string
		want      Capabilities
	}{
		{"v1 all", v1(`{"streaming":true,"pushNotifications":true,"extendedAgentCard":true}`), Capabilities{
			on("capabilities.streaming"), on("capabilities.pushNotifications"), on("capabilities.extendedAgentCard")}},
		{"v1 false and absent", v1(`{"streaming":false}`), Capabilities{Streaming: off("capabilities.streaming")}},
		{"v1 empty", v1(`{}`), Capabilities{}},
		{"v1 null", v1(`null`), Capabilities{}},
		{"case variant is no claim", v1(`{"Streaming":true,"PushNotifications":true,"extended_agent_card":true}`), Capabilities{}},
		{"push_notifications proto name", v1(`{"push_notifications":true}`), Capabilities{}},
		{"not a boolean", v1(`{"streaming":"true","pushNotifications":1}`), Capabilities{}},
		{"v03", v03(`,"capabilities":{"streaming":true,"pushNotifications":false},"supportsAuthenticatedExtendedCard":true`), Capabilities{
			on("capabilities.streaming"), off("capabilities.pushNotifications"), on("supportsAuthenticatedExtendedCard")}},
		{"v03 variant", v03(`,"SupportsAuthenticatedExtendedCard":true`), Capabilities{}},
		{"union v03 claims", `{"name":"a","supportedInterfaces":[],"url":"http://h/a","capabilities":{"extendedAgentCard":false},"supportsAuthenticatedExtendedCard":true}`,
			Capabilities{ExtendedAgentCard: on("supportsAuthenticatedExtendedCard")}},
		{"union v1 claims", `{"name":"a","supportedInterfaces":[],"url":"http://h/a","capabilities":{"extendedAgentCard":true},"supportsAuthenticatedExtendedCard":false}`,
			Capabilities{ExtendedAgentCard: on("capabilities.extendedAgentCard")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Capabilities); diff != "" {
				t.Errorf("capabilities (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := Parse([]byte(v1(`{"streaming":true,"streaming":false}`))); err == nil {
		t.Error("a repeated capability member was read")
	}
}
