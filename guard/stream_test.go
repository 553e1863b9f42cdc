package guard_test

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// gatedStream is an executor whose stream sends "working", then waits for release
// before it completes: a client sees the first event before the stream ends only if
// nothing between them buffers it.
type gatedStream struct{ release chan struct{} }

var _ a2asrv.AgentExecutor = gatedStream{}

func (e gatedStream) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		select {
		case <-e.release:
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		case <-ctx.Done():
		}
	}
}

func (gatedStream) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// TestStreamingPassesThroughUnbuffered: SSE streams of JSON-RPC and HTTP+JSON go
// through the guard's proxy event by event. The agent holds its stream open after the
// first events until the client has received them; a buffering proxy would deliver
// nothing until the stream ended, and the test would time out.
func TestStreamingPassesThroughUnbuffered(t *testing.T) {
	t.Parallel()
	lis := listen(t)
	front := "http://" + lis.Addr().String()
	exec := gatedStream{release: make(chan struct{})}
	a := labtest.Start(t, lab.WithExecutor(exec),
		lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
		lab.WithCard(func(*lab.Agent) any { // the card sends clients through the guard
			return lab.V1Card("streaming", lab.Decl{URL: front + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: front + lab.PathREST, Binding: lab.HTTPJSON, Version: card.V1})
		}))
	g := startGuard(t, a.BaseURL, guard.WithListener(lis))
	if s := g.State(); !s.Published {
		t.Fatalf("card withheld: %s %+v", s.Reason, s.Findings)
	}
	for _, b := range []struct {
		binding a2a.TransportProtocol
		path    string
	}{{a2a.TransportProtocolJSONRPC, lab.PathJSONRPC}, {a2a.TransportProtocolHTTPJSON, lab.PathREST}} {
		t.Run(string(b.binding), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{{
				URL: front + b.path, ProtocolBinding: b.binding, ProtocolVersion: a2a.ProtocolVersion(card.V1)}})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = client.Destroy() }()
			release := make(chan struct{})
			go func() { // the agent's stream ends only once the client saw "working"
				select {
				case <-release:
				case <-ctx.Done():
				}
				select {
				case exec.release <- struct{}{}:
				case <-ctx.Done():
				}
			}()
			var states []a2a.TaskState
			for ev, err := range client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{
				Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("stream"))}) {
				if err != nil {
					t.Fatalf("stream: %v (after %v)", err, states)
				}
				switch e := ev.(type) {
				case *a2a.Task:
					states = append(states, e.Status.State)
				case *a2a.TaskStatusUpdateEvent:
					states = append(states, e.Status.State)
					if e.Status.State == a2a.TaskStateWorking {
						close(release)
					}
				}
			}
			if len(states) < 3 || states[len(states)-1] != a2a.TaskStateCompleted {
				t.Errorf("stream states = %v, want submitted, working, completed", states)
			}
		})
	}
}
