package guard_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
)

// Strict mode withholds the seed agent's card: it prefers gRPC where only JSON-RPC is
// served.
func ExampleNew() {
	seed, err := lab.Start(lab.Seed()...)
	if err != nil {
		panic(err)
	}
	defer seed.Close()
	g, err := guard.New(seed.BaseURL)
	if err != nil {
		panic(err)
	}
	defer g.Shutdown(context.Background())
	if err := g.Start(context.Background()); err != nil {
		panic(err)
	}
	resp, err := http.Get(g.URL() + card.WellKnownPath)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Retry-After") != "")
	for _, f := range g.State().Findings {
		fmt.Println(f.Code, f.Interface)
	}
	// Output:
	// 503 true
	// preferred-not-served url+preferredTransport
	// interface-not-served url+preferredTransport
	// interface-not-served additionalInterfaces[1]
}

// WithNormalize publishes the seed agent's card with only what is served: JSON-RPC at url.
func ExampleWithNormalize() {
	seed, err := lab.Start(lab.Seed()...)
	if err != nil {
		panic(err)
	}
	defer seed.Close()
	g, err := guard.New(seed.BaseURL, guard.WithNormalize())
	if err != nil {
		panic(err)
	}
	defer g.Shutdown(context.Background())
	if err := g.Start(context.Background()); err != nil {
		panic(err)
	}
	c, err := card.Fetch(context.Background(), g.URL())
	if err != nil {
		panic(err)
	}
	for _, r := range probe.Card(context.Background(), c) {
		fmt.Println(r.Interface.Binding, r.Interface.Source, r.Outcome)
	}
	fmt.Println("removed:", len(g.State().Normalized.Removed))
	// Output:
	// JSONRPC url+preferredTransport served
	// removed: 2
}

// A mapping probes a public address on a local socket; the card keeps the public one.
func ExampleParseMapping() {
	m, err := guard.ParseMapping("https://agent.example.com=http://127.0.0.1:8080")
	fmt.Println(m, err)
	// Output:
	// https://agent.example.com:443=http://127.0.0.1:8080 <nil>
}
