package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// askFirst asks for input on a new task (input-required: its execution ends) and
// completes it, echoing, on the follow-up message.
type askFirst struct{}

func (askFirst) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			if yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, nil), nil)
			}
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (askFirst) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func startAskFirst(t *testing.T, opts ...Option) *Server {
	t.Helper()
	srv, err := New(askFirst{}, append([]Option{echoInfo, WithGRPCAddr("127.0.0.1:0")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return srv
}

func userText(text string, task a2a.TaskID) *a2a.SendMessageRequest {
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	m.TaskID = task
	return &a2a.SendMessageRequest{Message: m}
}

func stateOf(ev a2a.Event) a2a.TaskState {
	switch ev := ev.(type) {
	case *a2a.Task:
		return ev.Status.State
	case *a2a.TaskStatusUpdateEvent:
		return ev.Status.State
	}
	return ""
}

// TestSubscribeToAnInputRequiredTask: on every binding, SubscribeToTask on a task whose
// execution ended in input-required attaches (a2a-go answers "no active execution"):
// the stored task first, then the events of the execution the follow-up message
// starts, to completed. On the completed task it is UnsupportedOperationError.
func TestSubscribeToAnInputRequiredTask(t *testing.T) {
	srv := startAskFirst(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := clientFor(t, srv, b)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			res, err := c.SendMessage(ctx, userText("hello", ""))
			task, ok := res.(*a2a.Task)
			if err != nil || !ok || task.Status.State != a2a.TaskStateInputRequired {
				t.Fatalf("SendMessage = %v, %v; want an input-required task", res, err)
			}
			var states []a2a.TaskState
			followed := false
			for ev, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
				if err != nil {
					t.Fatalf("SubscribeToTask after %v: %v", states, err)
				}
				states = append(states, stateOf(ev))
				if !followed {
					followed = true
					if _, ok := ev.(*a2a.Task); !ok {
						t.Fatalf("first event = %T, want the stored task", ev)
					}
					if _, err := c.SendMessage(ctx, userText("more", task.ID)); err != nil {
						t.Fatalf("follow-up SendMessage: %v", err)
					}
				}
			}
			want := []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateWorking, a2a.TaskStateCompleted}
			if fmt.Sprint(states) != fmt.Sprint(want) {
				t.Errorf("subscription states = %v, want %v", states, want)
			}
			for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
				if !errors.Is(err, a2a.ErrUnsupportedOperation) {
					t.Errorf("SubscribeToTask(completed) = %v, want UnsupportedOperationError", err)
				}
				break
			}
		})
	}
}

// TestSubscribeToATerminalTaskIsAPlainError: the refusal comes before any stream, as a
// plain error answer (application/json, the HTTP+JSON status), never inside an SSE stream.
func TestSubscribeToATerminalTaskIsAPlainError(t *testing.T) {
	srv := startServer(t, WithV03())
	c := clientFor(t, srv, a2a.TransportProtocolJSONRPC)
	res, err := c.SendMessage(t.Context(), userText("done", ""))
	task, ok := res.(*a2a.Task)
	if err != nil || !ok || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("SendMessage = %v, %v; want a completed task", res, err)
	}
	base := srv.LocalBaseURL()
	tests := []struct {
		name, method, url, body, version string
		wantStatus                       int
		want                             string
	}{
		{"JSON-RPC 1.0", http.MethodPost, base + PathJSONRPC,
			`{"jsonrpc":"2.0","id":7,"method":"SubscribeToTask","params":{"id":"` + string(task.ID) + `"}}`, "1.0", 200, `"code":-32004`},
		{"JSON-RPC 0.3", http.MethodPost, base + PathJSONRPCV03,
			`{"jsonrpc":"2.0","id":7,"method":"tasks/resubscribe","params":{"id":"` + string(task.ID) + `"}}`, "", 200, `"code":-32004`},
		{"HTTP+JSON 1.0", http.MethodPost, base + PathREST + "/tasks/" + string(task.ID) + ":subscribe", "", "1.0", 400, "UNSUPPORTED_OPERATION"},
		{"HTTP+JSON 1.0, GET", http.MethodGet, base + PathREST + "/tasks/" + string(task.ID) + ":subscribe", "", "1.0", 400, "UNSUPPORTED_OPERATION"},
		{"HTTP+JSON 1.0, unknown task", http.MethodPost, base + PathREST + "/tasks/no-such-task:subscribe", "", "1.0", 404, "TASK_NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, tt.url, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if tt.version != "" {
				req.Header.Set("A2A-Version", tt.version)
			}
			code, h, body := do(t, req)
			if code != tt.wantStatus || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || !strings.Contains(body, tt.want) || strings.Contains(body, "data:") {
				t.Errorf("%s %s = %d %s %s, want %d application/json with %s", tt.method, tt.url, code, h.Get("Content-Type"), body, tt.wantStatus, tt.want)
			}
		})
	}
}

// TestSendMessageHonoursHistoryLength: configuration.historyLength trims the history of
// the task SendMessage returns (§3.2.4): 0 is none, 1 the last message; unset is all.
func TestSendMessageHonoursHistoryLength(t *testing.T) {
	srv := startAskFirst(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := clientFor(t, srv, b)
			res, err := c.SendMessage(t.Context(), userText("one", ""))
			if err != nil {
				t.Fatal(err)
			}
			id := res.(*a2a.Task).ID
			for _, n := range []int{-1, 0, 1} {
				req := userText("again", id)
				if n >= 0 {
					req.Config = &a2a.SendMessageConfig{HistoryLength: &n}
				}
				res, err := c.SendMessage(t.Context(), req)
				task, ok := res.(*a2a.Task)
				if err != nil || !ok {
					t.Fatalf("SendMessage(historyLength %d) = %v, %v", n, res, err)
				}
				switch {
				case n < 0 && len(task.History) < 2:
					t.Errorf("without historyLength: %d messages, want the whole history (>= 2)", len(task.History))
				case n >= 0 && len(task.History) != n:
					t.Errorf("historyLength %d: %d messages in the history", n, len(task.History))
				}
				id = task.ID
				if task.Status.State.Terminal() { // the follow-up completed it: start again
					res, err := c.SendMessage(t.Context(), userText("one", ""))
					if err != nil {
						t.Fatal(err)
					}
					id = res.(*a2a.Task).ID
				}
			}
		})
	}
}

// TestV03HistoryLengthAndCancel: in 0.3 a negative historyLength is InvalidParams, and on
// both versions cancelling a task in a terminal state (canceled included: a2a-go answers
// it with the task) is TaskNotCancelable.
func TestV03HistoryLengthAndCancel(t *testing.T) {
	srv := startAskFirst(t, WithV03())
	c := clientFor(t, srv, a2a.TransportProtocolJSONRPC)
	res, err := c.SendMessage(t.Context(), userText("hello", ""))
	if err != nil {
		t.Fatal(err)
	}
	id := string(res.(*a2a.Task).ID)
	v03, v1 := srv.LocalBaseURL()+PathJSONRPCV03, srv.LocalBaseURL()+PathJSONRPC
	type answer struct {
		Code    int
		Message string
	}
	call := func(url, version, method, params string) answer {
		t.Helper()
		var h []string
		if version != "" {
			h = []string{"A2A-Version", version}
		}
		_, _, body := post(t, url, "application/json", `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`, h...)
		got, msg := parseRPC(t, body)
		return answer{got.Code, msg}
	}
	if got := call(v03, "", "tasks/get", `{"id":"`+id+`","historyLength":-1}`); got.Code != -32602 {
		t.Errorf("0.3 tasks/get historyLength -1 = %d %s, want -32602 InvalidParams", got.Code, got.Message)
	}
	if got := call(v1, "1.0", "GetTask", `{"id":"`+id+`","historyLength":-1}`); got.Code != 0 {
		t.Errorf("1.0 GetTask historyLength -1 = %d %s, want the task (no limit)", got.Code, got.Message)
	}
	if got := call(v03, "", "tasks/cancel", `{"id":"`+id+`"}`); got.Code != 0 {
		t.Fatalf("0.3 tasks/cancel(input-required) = %d %s, want the canceled task", got.Code, got.Message)
	}
	if got := call(v03, "", "tasks/cancel", `{"id":"`+id+`"}`); got.Code != -32002 {
		t.Errorf("0.3 tasks/cancel(canceled) = %d %s, want -32002 TaskNotCancelable", got.Code, got.Message)
	}
	if got := call(v1, "1.0", "CancelTask", `{"id":"`+id+`"}`); got.Code != -32002 {
		t.Errorf("1.0 CancelTask(canceled) = %d %s, want -32002 TaskNotCancelable", got.Code, got.Message)
	}
}

// do sends a request and returns status, headers and the (bounded) body.
func do(t *testing.T, req *http.Request) (int, http.Header, string) {
	t.Helper()
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(b)
}
