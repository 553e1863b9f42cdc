package server

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

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
	if code != http.StatusBadRequest || !strings.Contains(body, "-32602") {
		t.Errorf("a truncated body = %d %s, want 400 InvalidParams", code, body)
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
