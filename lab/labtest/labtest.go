// Package labtest starts lab agents for tests and benchmarks and stops them when the
// test ends.
package labtest

import (
	"context"
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2abind/a2abind/lab"
)

// Start starts a lab agent with opts, fails tb if it cannot, and closes the agent in
// tb's cleanup.
func Start(tb testing.TB, opts ...lab.Option) *lab.Agent {
	tb.Helper()
	a, err := lab.Start(opts...)
	if err != nil {
		tb.Fatalf("lab.Start() error = %v", err)
	}
	tb.Cleanup(func() { _ = a.Close() })
	return a
}

// SendText sends "ping" through a real a2a-go v2.3.1 client bound to the one endpoint ep
// and returns the text of the first artifact of the task it gets back.
func SendText(ctx context.Context, ep *a2a.AgentInterface, opts ...a2aclient.FactoryOption) (string, error) {
	c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, opts...)
	if err != nil {
		return "", err
	}
	defer c.Destroy()
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))})
	if err != nil {
		return "", err
	}
	task, ok := res.(*a2a.Task)
	if !ok || len(task.Artifacts) == 0 || len(task.Artifacts[0].Parts) == 0 {
		return "", errors.New("no artifact in the result")
	}
	return task.Artifacts[0].Parts[0].Text(), nil
}
