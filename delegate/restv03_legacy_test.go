package delegate

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/restv03"
)

// legacyAgent is a loopback agent that speaks a2a-go v2.3.1's v0.3 HTTP+JSON dialect
// as its rest_server.go does: routes at the URL itself, subscribe by POST, legacy v0.3
// JSON with snake_case keys. It fails a request whose body is not that dialect (a
// camelCase key, a part without "kind") with 400, as v2.3.1 does ("parse error").
func legacyAgent(t *testing.T, bodies *atomic.Int32) *httptest.Server {
	t.Helper()
	task := func(text string) string {
		return `{"kind":"task","id":"t-1","context_id":"c-1","status":{"state":"completed"},` +
			`"artifacts":[{"artifact_id":"a-1","parts":[{"kind":"text","text":` + strconvQuote(text) + `}]}],` +
			`"metadata":{"trace_id":"x"}}`
	}
	read := func(w http.ResponseWriter, r *http.Request) (string, bool) {
		b, _ := io.ReadAll(r.Body)
		var p struct {
			Message map[string]json.RawMessage `json:"message"`
		}
		if json.Unmarshal(b, &p) != nil || p.Message["message_id"] == nil || p.Message["messageId"] != nil {
			http.Error(w, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"parse error"}}`, http.StatusBadRequest)
			return "", false
		}
		var parts []struct{ Kind, Text string }
		if json.Unmarshal(p.Message["parts"], &parts) != nil || len(parts) != 1 || parts[0].Kind != "text" {
			http.Error(w, "parse error", http.StatusBadRequest)
			return "", false
		}
		bodies.Add(1)
		return parts[0].Text, true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /message:send", func(w http.ResponseWriter, r *http.Request) {
		if text, ok := read(w, r); ok {
			_, _ = io.WriteString(w, task(text))
		}
	})
	mux.HandleFunc("POST /message:stream", func(w http.ResponseWriter, r *http.Request) {
		text, ok := read(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", `{"kind":"task","id":"t-1","context_id":"c-1","status":{"state":"submitted"}}`)
		fmt.Fprintf(w, "data: %s\n\n", `{"kind":"artifact-update","task_id":"t-1","context_id":"c-1","last_chunk":true,`+
			`"artifact":{"artifact_id":"a-1","parts":[{"kind":"text","text":`+strconvQuote(text)+`}]}}`)
		fmt.Fprintf(w, "data: %s\n\n", `{"kind":"status-update","task_id":"t-1","context_id":"c-1","final":true,"status":{"state":"completed"}}`)
	})
	mux.HandleFunc("GET /tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "t-1" {
			http.Error(w, "task not found", http.StatusNotFound)
			return
		}
		_, _ = io.WriteString(w, task("got"))
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRESTV03LegacyDialect: the delegate's v0.3 HTTP+JSON client in a2a-go v2.3.1's
// dialect writes the message as snake_case legacy JSON (the agent rejects anything
// else) and reads snake_case answers back: a task, a stream of events, GetTask. The
// specification's dialect at the same URL gets no route, so the test can fail.
func TestRESTV03LegacyDialect(t *testing.T) {
	var bodies atomic.Int32
	s := legacyAgent(t, &bodies)
	tr := newRESTV03Transport(s.URL, restv03.A2AGo, s.Client())
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello legacy"))}

	res, err := tr.SendMessage(t.Context(), nil, req)
	if err != nil {
		t.Fatalf("SendMessage() error = %v", err)
	}
	got, ok := res.(*a2a.Task)
	if !ok || got.ID != "t-1" || got.ContextID != "c-1" || got.Status.State != a2a.TaskStateCompleted ||
		len(got.Artifacts) != 1 || got.Artifacts[0].ID != "a-1" || got.Artifacts[0].Parts[0].Text() != "hello legacy" {
		t.Errorf("SendMessage() = %#v, want task t-1 completed with the echo", res)
	}

	var kinds []string
	var echoed bool
	for ev, err := range tr.SendStreamingMessage(t.Context(), nil, req) {
		if err != nil {
			t.Fatalf("SendStreamingMessage() error = %v", err)
		}
		kinds = append(kinds, fmt.Sprintf("%T", ev))
		if u, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
			echoed = u.TaskID == "t-1" && u.LastChunk && u.Artifact.Parts[0].Text() == "hello legacy"
		}
		if u, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && (u.TaskID != "t-1" || u.Status.State != a2a.TaskStateCompleted) {
			t.Errorf("status update %#v, want t-1 completed", u)
		}
	}
	if want := "*a2a.Task *a2a.TaskArtifactUpdateEvent *a2a.TaskStatusUpdateEvent"; strings.Join(kinds, " ") != want || !echoed {
		t.Errorf("stream = %v (echoed %v), want %s with the echo", kinds, echoed, want)
	}

	task, err := tr.GetTask(t.Context(), nil, &a2a.GetTaskRequest{ID: "t-1"})
	if err != nil || task.ID != "t-1" || task.ContextID != "c-1" {
		t.Errorf("GetTask() = %#v, %v; want t-1 in c-1", task, err)
	}
	if n := bodies.Load(); n != 2 {
		t.Errorf("the agent read %d messages, want 2", n)
	}

	spec := newRESTV03Transport(s.URL, restv03.Spec, s.Client())
	if _, err := spec.SendMessage(t.Context(), nil, req); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("the specification's dialect at a2a-go v2.3.1's routes: error = %v, want HTTP 404", err)
	}
}

// TestRESTV03UnlocatedSendsOnce: where the lookup finds no v0.3 HTTP+JSON routes (every
// path answers a plain 404), the delegate sends the message once, the specification's
// way under /v1, and never again in a2a-go v2.3.1's dialect at {url}.
func TestRESTV03UnlocatedSendsOnce(t *testing.T) {
	var mu sync.Mutex
	var posts []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if strings.Contains(string(b), "once") { // the message, not a lookup
			mu.Lock()
			posts = append(posts, r.Method+" "+r.URL.Path)
			mu.Unlock()
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(s.Close)
	c := &card.Card{Name: "x", Interfaces: []card.Interface{{URL: s.URL, Binding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: card.V03}}}
	cl, err := NewFromCard(c)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("once"))}); err == nil {
		t.Error("SendMessage() error = nil against an agent that serves nothing")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 1 || posts[0] != "POST /v1/message:send" {
		t.Errorf("the agent saw the message as %v, want exactly one POST /v1/message:send", posts)
	}
}
