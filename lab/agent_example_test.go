package lab_test

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// ExampleStart starts the seed incident's agent on loopback: its card prefers gRPC at
// the HTTP base URL, its gRPC listener registers no A2A service, and only JSON-RPC 0.3
// answers.
func ExampleStart() {
	agent, err := lab.Start(lab.Seed()...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer agent.Close()

	ctx := context.Background()
	c, err := card.Fetch(ctx, agent.BaseURL)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, i := range c.Interfaces {
		where := "the gRPC listener"
		if i.URL == agent.BaseURL {
			where = "the HTTP base URL"
		}
		fmt.Println("declares", i.Binding, i.ProtocolVersion, "at", where)
	}
	// The JSON-RPC 0.3 interface answers an a2a-go client speaking 0.3.
	ep := &a2a.AgentInterface{URL: agent.BaseURL, ProtocolBinding: lab.JSONRPC, ProtocolVersion: card.V03}
	text, err := labtest.SendText(ctx, ep, a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}))
	fmt.Println("JSON-RPC answers", text, err)
	// Output:
	// declares GRPC 0.3 at the HTTP base URL
	// declares JSONRPC 0.3 at the HTTP base URL
	// declares GRPC 0.3 at the gRPC listener
	// JSON-RPC answers ping <nil>
}
