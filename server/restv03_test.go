package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/internal/restv03"
)

// TestRESTV03Routes speaks the v0.3 HTTP+JSON wire as a v0.3 client does: proto JSON
// at {url}/v1/..., the v0.3.0 "content" name for a message's parts, SSE streams, and
// errors whose body carries the A2A error code.
func TestRESTV03Routes(t *testing.T) {
	srv := startServer(t, WithV03())
	base := srv.LocalBaseURL() + PathRESTV03 + "/v1"
	msg := `{"message":{"messageId":"m-%s","role":"ROLE_USER","content":[{"text":"hi v03"}]}}`

	code, _, body := post(t, base+"/message:send", "application/json", strings.ReplaceAll(msg, "%s", "send"))
	var sent struct {
		Task struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
			History []struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"history"`
		} `json:"task"`
	}
	if err := json.Unmarshal([]byte(body), &sent); code != http.StatusOK || err != nil || sent.Task.Status.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("POST /v1/message:send = %d %s, want 200 with a completed task", code, body)
	}
	if len(sent.Task.History) == 0 || len(sent.Task.History[0].Content) == 0 || sent.Task.History[0].Content[0].Text != "hi v03" {
		t.Errorf("the task's history = %s, want the message with its parts under \"content\"", body)
	}

	code, _, body = get(t, base+"/tasks/"+sent.Task.ID)
	if code != http.StatusOK || !strings.Contains(body, sent.Task.ID) {
		t.Errorf("GET /v1/tasks/{id} = %d %s", code, body)
	}
	code, _, body = get(t, base+"/tasks/no-such-task")
	var e restv03.ErrorBody
	if err := json.Unmarshal([]byte(body), &e); code != http.StatusNotFound || err != nil || e.Code != -32001 {
		t.Errorf("GET /v1/tasks/unknown = %d %s, want 404 with code -32001", code, body)
	}
	code, _, body = post(t, base+"/tasks/"+sent.Task.ID+":cancel", "application/json", "{}")
	if err := json.Unmarshal([]byte(body), &e); code != http.StatusBadRequest || err != nil || e.Code != -32002 {
		t.Errorf("POST /v1/tasks/{completed}:cancel = %d %s, want 400 with code -32002", code, body)
	}
	code, _, body = post(t, base+"/message:send", "application/json", `{"message":`)
	if code != http.StatusBadRequest || !strings.Contains(body, `"code":-32700`) {
		t.Errorf("a truncated body = %d %s, want 400 ParseError", code, body)
	}

	req, err := http.NewRequest(http.MethodPost, base+"/message:stream", strings.NewReader(strings.ReplaceAll(msg, "%s", "stream")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev map[string]json.RawMessage
			if err := json.Unmarshal([]byte(data), &ev); err != nil {
				t.Fatalf("SSE event %q: %v", data, err)
			}
			for k := range ev {
				events = append(events, k)
			}
		}
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" || len(events) < 3 || events[0] != "task" {
		t.Errorf("stream = %s, events %v; want text/event-stream starting with the task", resp.Header.Get("Content-Type"), events)
	}
}

// errorInfoReason is the reason of the status's google.rpc.ErrorInfo, "" for none.
func errorInfoReason(st *status.Status) string {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// TestRESTV03ProtoNamesAndSubscribe: v0.3 HTTP+JSON as the v0.3 TCK and proto-JSON
// clients send it: bodies in proto field names (message_id, task_id, history_length)
// with parts under "content", query parameters in proto field names, and subscribe by
// GET and POST: it attaches to an input-required task, and is a plain -32004 error on a
// completed one.
func TestRESTV03ProtoNamesAndSubscribe(t *testing.T) {
	srv := startAskFirst(t, WithV03())
	base := srv.LocalBaseURL() + PathRESTV03 + "/v1"
	type task struct {
		ID      string            `json:"id"`
		History []json.RawMessage `json:"history"`
		Status  struct {
			State string `json:"state"`
		} `json:"status"`
	}
	send := func(body string) task {
		t.Helper()
		code, _, b := post(t, base+"/message:send", "application/json", body)
		var sent struct{ Task task }
		if err := json.Unmarshal([]byte(b), &sent); code != http.StatusOK || err != nil || sent.Task.ID == "" {
			t.Fatalf("message:send %s = %d %s", body, code, b)
		}
		return sent.Task
	}
	first := func(n string) string {
		tk := send(`{"message":{"message_id":"m-` + n + `","role":"ROLE_USER","content":[{"text":"hi"}]}}`)
		if tk.Status.State != "TASK_STATE_INPUT_REQUIRED" || len(tk.History) != 1 || !strings.Contains(string(tk.History[0]), `"m-`+n+`"`) {
			t.Fatalf("message:send in proto field names = %+v, want an input-required task with message m-%s", tk, n)
		}
		return tk.ID
	}
	followUp := func(id, n, config string) task {
		return send(`{"message":{"message_id":"m-more-` + n + `","task_id":"` + id + `","role":"ROLE_USER","content":[{"text":"more"}]}` + config + `}`)
	}

	for _, method := range []string{http.MethodGet, http.MethodPost} {
		t.Run("subscribe by "+method, func(t *testing.T) {
			id := first(method)
			req, err := http.NewRequest(method, base+"/tasks/"+id+":subscribe", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := httpClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("%s :subscribe = %d %s, want an SSE stream", method, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			var events []string
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				data, ok := strings.CutPrefix(sc.Text(), "data: ")
				if !ok {
					continue
				}
				events = append(events, data)
				if len(events) == 1 {
					followUp(id, method, "")
				}
			}
			if len(events) < 3 || !strings.Contains(events[0], `"task"`) || !strings.Contains(events[len(events)-1], "TASK_STATE_COMPLETED") {
				t.Errorf("%s :subscribe events = %q, want the stored task first and the follow-up's events to completed", method, events)
			}
			var e restv03.ErrorBody
			c, h, b := post(t, base+"/tasks/"+id+":subscribe", "", "")
			if err := json.Unmarshal([]byte(b), &e); c != http.StatusBadRequest || err != nil || e.Code != -32004 || strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
				t.Errorf(":subscribe on the completed task = %d %s %s, want a plain 400 with code -32004", c, h.Get("Content-Type"), b)
			}
			for _, q := range []string{"?history_length=1", "?historyLength=1"} {
				code, _, body := get(t, base+"/tasks/"+id+q)
				var got task
				if err := json.Unmarshal([]byte(body), &got); code != http.StatusOK || err != nil || len(got.History) != 1 {
					t.Errorf("GET /v1/tasks/{id}%s = %d %s, want one of the two messages", q, code, body)
				}
			}
		})
	}

	id := first("config")
	if tk := followUp(id, "config", `,"configuration":{"blocking":true,"history_length":1}`); tk.Status.State != "TASK_STATE_COMPLETED" || len(tk.History) != 1 {
		t.Errorf("message:send with configuration.history_length 1 = %+v, want the completed task with one message", tk)
	}
}
