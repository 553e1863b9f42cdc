// Package labtest starts lab agents for tests and benchmarks and stops them when the
// test ends.
package labtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2abind/a2abind/card"
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

// Behind starts a lab.Delay proxy adding oneWay latency (zero for none) in front of each
// of addrs and rewrites c's interface URLs to go through them; the proxies, keyed by the
// address they front, count the connections clients open, and close in tb's cleanup.
func Behind(tb testing.TB, c *card.Card, oneWay time.Duration, addrs ...string) map[string]*lab.Delay {
	tb.Helper()
	proxies := map[string]*lab.Delay{}
	for _, addr := range addrs {
		d, err := lab.NewDelay(addr, oneWay)
		if err != nil {
			tb.Fatalf("lab.NewDelay(%s) error = %v", addr, err)
		}
		tb.Cleanup(func() { _ = d.Close() })
		proxies[addr] = d
		for n := range c.Interfaces {
			c.Interfaces[n].URL = strings.Replace(c.Interfaces[n].URL, addr, d.Addr, 1)
		}
	}
	return proxies
}
