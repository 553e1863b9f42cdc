package labtest_test

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// ExampleSendText sends "ping" to the healthy lab agent's JSON-RPC endpoint with a plain
// a2a-go client; the echo executor answers with the same text.
func ExampleSendText() {
	agent, err := lab.Start(lab.Healthy()...)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer agent.Close()
	ep := &a2a.AgentInterface{URL: agent.URL(lab.PathJSONRPC), ProtocolBinding: lab.JSONRPC, ProtocolVersion: card.V1}
	text, err := labtest.SendText(context.Background(), ep)
	fmt.Println(text, err)
	// Output:
	// ping <nil>
}
