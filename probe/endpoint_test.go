package probe

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// TestEndpointsRemember: an Engine's memory of interface URLs answers what reading
// the URL answers (parsed endpoint, error, notes), per URL and binding, and holds at
// most its bound of them.
func TestEndpointsRemember(t *testing.T) {
	c := endpoints{m: map[endpointKey]*parsedEndpoint{}, max: 4}
	ifaces := []card.Interface{
		{URL: "http://127.0.0.1:8080/a", Binding: a2a.TransportProtocolJSONRPC},
		{URL: "grpc://127.0.0.1:9090", Binding: "grpc"}, // a binding spelled otherwise
		{URL: "127.0.0.1:9090", Binding: a2a.TransportProtocolGRPC},
		{URL: "unix:///tmp/s", Binding: a2a.TransportProtocolHTTPJSON},
		{URL: "http://127.0.0.1:8080/a", Binding: a2a.TransportProtocolHTTPJSON},
	}
	for range 2 { // the second round is answered from memory
		for n, got := range c.read(ifaces) {
			b, _ := addr.CanonicalBinding(ifaces[n].Binding)
			want := readEndpoint(ifaces[n].URL, b)
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("read(%s %s) = %+v, want %+v", ifaces[n].Binding, ifaces[n].URL, got, want)
			}
		}
	}
	if got := c.read(ifaces[1:2])[0].notes; len(got) != 1 {
		t.Errorf("notes of a grpc:// URL = %q, want the Go client's refusal", got)
	}
	for n := range 10 {
		c.read([]card.Interface{{URL: "http://h" + strconv.Itoa(n) + ":80/", Binding: a2a.TransportProtocolJSONRPC}})
		if len(c.m) > c.max {
			t.Fatalf("%d URLs remembered, bound %d", len(c.m), c.max)
		}
	}
}
