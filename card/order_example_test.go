package card_test

import (
	"fmt"

	"github.com/a2abind/a2abind/card"
)

// A v0.3 card whose preferredTransport (GRPC) at url is contradicted by
// additionalInterfaces: the primary pair is skipped, the other GRPC entry comes first.
func ExampleCallOrder() {
	c, err := card.Parse([]byte(`{
		"name": "seed", "protocolVersion": "0.3.0",
		"url": "http://h:8443", "preferredTransport": "GRPC",
		"additionalInterfaces": [
			{"url": "http://h:8443", "transport": "JSONRPC"},
			{"url": "h:9443", "transport": "GRPC"}
		]}`))
	if err != nil {
		panic(err)
	}
	order, skipped := card.CallOrder(c, nil)
	for _, i := range order {
		fmt.Println("call", i)
	}
	for _, s := range skipped {
		fmt.Println("skip", s.Interface, "-", s.Reason)
	}
	// Output:
	// call GRPC 0.3 at h:9443
	// call JSONRPC 0.3 at http://h:8443
	// skip GRPC 0.3 at http://h:8443 - url+preferredTransport is contradicted: additionalInterfaces declare another binding at url
}
