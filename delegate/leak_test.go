package delegate

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.uber.org/goleak"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a client, connection, server or stream left open by the code under test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestCloseReleasesConnections: after Close, no goroutine of the client is left (no
// idle HTTP connection, the card fetch's included, and no gRPC connection), while the
// agent is still running, so nothing is hidden by the server closing its end.
func TestCloseReleasesConnections(t *testing.T) {
	tests := []struct {
		name   string
		agent  []lab.Option
		opts   []Option
		stream bool
		leave  bool // stop reading the stream after its first event
	}{
		{name: "JSON-RPC", agent: lab.Healthy(), opts: []Option{WithBindings(a2a.TransportProtocolJSONRPC)}},
		{name: "gRPC", agent: lab.Healthy(), opts: []Option{WithBindings(a2a.TransportProtocolGRPC), WithPlaintextGRPC()}},
		{name: "HTTP+JSON", agent: lab.Healthy(), opts: []Option{WithBindings(a2a.TransportProtocolHTTPJSON)}},
		{name: "JSON-RPC stream", agent: lab.Healthy(), opts: []Option{WithBindings(a2a.TransportProtocolJSONRPC)}, stream: true},
		{name: "gRPC stream", agent: lab.Healthy(), opts: []Option{WithBindings(a2a.TransportProtocolGRPC), WithPlaintextGRPC()}, stream: true},
		{name: "JSON-RPC stream left after one event", agent: lab.Healthy(), opts: []Option{WithBindings(a2a.TransportProtocolJSONRPC)}, stream: true, leave: true},
		{name: "gRPC stream left after one event", agent: lab.Healthy(), opts: []Option{WithBindings(a2a.TransportProtocolGRPC), WithPlaintextGRPC()}, stream: true, leave: true},
		{name: "HTTP+JSON stream left after one event", agent: lab.Healthy(), opts: []Option{WithBindings(a2a.TransportProtocolHTTPJSON)}, stream: true, leave: true},
		{name: "v0.3 fallback from gRPC without service", agent: lab.Seed()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := labtest.Start(t, tc.agent...)
			ctx := testContext(t)
			before := goleak.IgnoreCurrent()
			c, err := New(ctx, a.BaseURL, tc.opts...)
			if err != nil {
				t.Fatalf("New() error = %v", err)
			}
			if tc.stream {
				n := 0
				for _, err := range c.SendStreamingMessage(ctx, userMessage("hi")) {
					if err != nil {
						t.Fatalf("SendStreamingMessage() error = %v", err)
					}
					n++
					if tc.leave {
						break
					}
				}
				if n == 0 {
					t.Fatal("SendStreamingMessage() gave no event")
				}
			} else if _, err := c.SendMessage(ctx, userMessage("hi")); err != nil {
				t.Fatalf("SendMessage() error = %v", err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close() = %v", err)
			}
			goleak.VerifyNone(t, before)
		})
	}
}

// TestFailedNewReleasesConnections: a New that fails after fetching the card (no usable
// interface) or while reading it leaves no connection behind.
func TestFailedNewReleasesConnections(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	ctx := testContext(t)
	before := goleak.IgnoreCurrent()
	if _, err := New(ctx, a.BaseURL, WithBindings("NOPE")); err == nil {
		t.Fatal("New(WithBindings(NOPE)) = nil error, want ErrNoCandidates")
	}
	if _, err := New(ctx, a.URL("/no/card/here.json")); err == nil {
		t.Fatal("New(missing card) = nil error, want an error")
	}
	goleak.VerifyNone(t, before)
}
