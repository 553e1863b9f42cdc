package server

import (
	"bufio"
	"context"
	"fmt"
	"iter"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// shortBodyTimeout sets requestBodyTimeout for one test (the package's tests are not
// parallel).
func shortBodyTimeout(t *testing.T, d time.Duration) {
	t.Helper()
	old := requestBodyTimeout
	requestBodyTimeout = d
	t.Cleanup(func() { requestBodyTimeout = old })
}

// TestSlowRequestBodyIsCut: a client that trickles its request body a byte at a time
// (slowloris) gets an answer once requestBodyTimeout has passed, instead of holding a
// handler and its connection for as long as it likes.
func TestSlowRequestBodyIsCut(t *testing.T) {
	const budget = 300 * time.Millisecond
	shortBodyTimeout(t, budget)
	srv := startServer(t)
	for _, path := range []string{PathJSONRPC, PathREST + "/message:send"} {
		t.Run(path, func(t *testing.T) {
			c, err := net.DialTimeout("tcp", srv.HTTPAddr(), time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 100000\r\n\r\n{", path, srv.HTTPAddr())
			stop := make(chan struct{})
			defer close(stop)
			go func() { // one byte every 20 ms: the body would take over half an hour
				for {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
					}
				}
			}()
			start := time.Now()
			_ = c.SetReadDeadline(time.Now().Add(budget + 3*time.Second))
			status, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				t.Fatalf("no answer %s after a trickled body started: %v", time.Since(start), err)
			}
			if !strings.HasPrefix(status, "HTTP/1.1 ") {
				t.Errorf("answer = %q, want an HTTP status line", status)
			}
		})
	}
}

// slowExecutor echoes after a pause longer than requestBodyTimeout.
type slowExecutor struct{ pause time.Duration }

func (s slowExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		select {
		case <-ctx.Done():
			yield(nil, ctx.Err())
			return
		case <-time.After(s.pause):
		}
		for ev, err := range (Echo{}).Execute(ctx, ec) {
			if _, ok := ev.(*a2a.Task); ok {
				continue // submitted above already
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

func (s slowExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return (Echo{}).Cancel(ctx, ec)
}

// TestLongAnswersOutliveTheBodyDeadline: the read deadline ends with the body. A
// blocking SendMessage and a stream that last longer than requestBodyTimeout complete on
// every binding of the HTTP port, gRPC over HTTP/2 included.
func TestLongAnswersOutliveTheBodyDeadline(t *testing.T) {
	shortBodyTimeout(t, 200*time.Millisecond)
	srv, err := New(slowExecutor{pause: 600 * time.Millisecond}, echoInfo, WithV03(), WithGRPCOnHTTP())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	if err := srv.Start(t.Context()); err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	for _, iface := range srv.Card().Interfaces {
		t.Run(string(iface.Binding)+" "+iface.ProtocolVersion, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			ep := &a2a.AgentInterface{URL: iface.URL, ProtocolBinding: iface.Binding, ProtocolVersion: a2a.ProtocolVersion(iface.ProtocolVersion)}
			c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, append(compatClients, grpcInsecure)...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Destroy()
			msg := func() *a2a.SendMessageRequest {
				return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("slow"))}
			}
			res, err := c.SendMessage(ctx, msg())
			if task, ok := res.(*a2a.Task); err != nil || !ok || task.Status.State != a2a.TaskStateCompleted {
				t.Errorf("SendMessage() = %v, %v; want a completed task", res, err)
			}
			var last a2a.Event
			for ev, err := range c.SendStreamingMessage(ctx, msg()) {
				if err != nil {
					t.Fatalf("stream error = %v", err)
				}
				last = ev
			}
			if up, ok := last.(*a2a.TaskStatusUpdateEvent); !ok || up.Status.State != a2a.TaskStateCompleted {
				t.Errorf("stream ended with %T %+v, want a completed status", last, last)
			}
		})
	}
}
