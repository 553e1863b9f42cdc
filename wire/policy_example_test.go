package wire_test

import (
	"fmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// A message walks the interfaces: it moves on after outcomes that prove no handler was
// reached and stops on the first ambiguous one; a read would go on.
func ExamplePolicy_Walk() {
	ifaces := []card.Interface{
		{URL: "h:9443", Binding: "GRPC", ProtocolVersion: "1.0"},
		{URL: "http://h/a2a/jsonrpc", Binding: "JSONRPC", ProtocolVersion: "1.0"},
		{URL: "http://h/a2a/rest", Binding: "HTTP+JSON", ProtocolVersion: "1.0"},
	}
	seen := map[string]wire.Outcome{
		"h:9443":               wire.HandlerMissing,
		"http://h/a2a/jsonrpc": wire.Ambiguous,
		"http://h/a2a/rest":    wire.Served,
	}
	for _, p := range []wire.Policy{{}, {Idempotent: true}} {
		w := p.Walk(ifaces, func(i card.Interface) wire.Tried { return wire.Tried{Outcome: seen[i.URL]} })
		fmt.Printf("idempotent=%v: ends on %s (%s)\n", p.Idempotent, ifaces[w.Last], w.Step.Why)
	}
	// Output:
	// idempotent=false: ends on JSONRPC 1.0 at http://h/a2a/jsonrpc (not resent to another interface (it may have been delivered))
	// idempotent=true: ends on HTTP+JSON 1.0 at http://h/a2a/rest (answered)
}
