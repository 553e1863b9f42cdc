package delegate

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// TestTransportsCoverA2ATransports holds the delegate's transport table to a2a's three
// transport protocols, the bindings addr.CoreBindings lets a card declare.
func TestTransportsCoverA2ATransports(t *testing.T) {
	got := slices.Sorted(maps.Keys(transports))
	want := slices.Sorted(slices.Values([]a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC, a2a.TransportProtocolHTTPJSON}))
	if !slices.Equal(got, want) {
		t.Fatalf("transports registers %v, a2a defines %v", got, want)
	}
	if core := slices.Sorted(slices.Values(addr.CoreBindings)); !slices.Equal(core, want) {
		t.Fatalf("addr.CoreBindings is %v, a2a defines %v", core, want)
	}
}

// TestBuildRefusesAnUnregisteredBinding: a binding with no entry in transports is an
// error that names it, not a nil transport.
func TestBuildRefusesAnUnregisteredBinding(t *testing.T) {
	c := &Client{}
	tr, err := c.build(card.Interface{URL: "http://127.0.0.1:1/", Binding: "SOAP", ProtocolVersion: card.V1}, probe.Way{})
	if err == nil || tr != nil || !strings.Contains(err.Error(), `"SOAP"`) {
		t.Fatalf("build(SOAP) = %v, %v; want an error naming the binding", tr, err)
	}
}
