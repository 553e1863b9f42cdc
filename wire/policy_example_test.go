package wire_test

import (
	"fmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// A message walks the interfaces. grpc-go's own "unknown service" proves that no
// handler ran; a VersionNotSupported answer needs the lookup on the same interface to
// get the same answer, as it does here, and the next interface's lookup to be answered by
// a handler; the message stops on the first ambiguous attempt, where a read would go on.
func ExamplePolicy_Walk() {
	ifaces := []card.Interface{
		{URL: "h:9443", Binding: "GRPC", ProtocolVersion: "1.0"},
		{URL: "http://h/v03/jsonrpc", Binding: "JSONRPC", ProtocolVersion: "1.0"},
		{URL: "http://h/a2a/jsonrpc", Binding: "JSONRPC", ProtocolVersion: "1.0"},
		{URL: "http://h/a2a/rest", Binding: "HTTP+JSON", ProtocolVersion: "1.0"},
	}
	seen := map[string]wire.Tried{
		"h:9443":               {Outcome: wire.HandlerMissing, Weight: wire.Proves},
		"http://h/v03/jsonrpc": {Outcome: wire.VersionMismatch, Weight: wire.NeedsConfirmation},
		"http://h/a2a/jsonrpc": {Outcome: wire.Ambiguous, Weight: wire.Unproven},
		"http://h/a2a/rest":    {Outcome: wire.Served, Weight: wire.HandlerAnswered},
	}
	for _, p := range []wire.Policy{{}, {Idempotent: true}} {
		w := p.Walk(ifaces, wire.Walker{
			Try: func(i card.Interface) wire.Tried { return seen[i.URL] },
			Lookup: func(i card.Interface) wire.Outcome {
				if o := seen[i.URL].Outcome; o != wire.Ambiguous {
					return o
				}
				return wire.Served // a handler answers the lookup; the message's answer was cut
			},
		})
		fmt.Printf("idempotent=%v: ends on %s (%s)\n", p.Idempotent, ifaces[w.Last], w.Step.Why)
	}
	// Output:
	// idempotent=false: ends on JSONRPC 1.0 at http://h/a2a/jsonrpc (not resent to another interface (it may have been delivered))
	// idempotent=true: ends on HTTP+JSON 1.0 at http://h/a2a/rest (answered)
}
