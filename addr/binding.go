package addr

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// CanonicalBinding maps a binding name compared case-insensitively to its canonical
// spelling. ok is false for anything that is not one of the three core bindings.
func CanonicalBinding(b a2a.TransportProtocol) (a2a.TransportProtocol, bool) {
	for _, known := range CoreBindings {
		if strings.EqualFold(string(b), string(known)) {
			return known, true
		}
	}
	return b, false
}

// CoreBindings are the protocol bindings the A2A specification defines, in the order
// a2abind tries them when it looks for what an address really serves.
var CoreBindings = []a2a.TransportProtocol{
	a2a.TransportProtocolJSONRPC,
	a2a.TransportProtocolGRPC,
	a2a.TransportProtocolHTTPJSON,
}
