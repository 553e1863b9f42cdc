package restv03

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"google.golang.org/protobuf/proto"
)

// TestLegacyBodies: a2a-go v2.3.1's dialect is legacy v0.3 JSON with snake_case keys,
// written and read; an answer that is neither a task nor a message is refused.
func TestLegacyBodies(t *testing.T) {
	req := &a2apbv0.SendMessageRequest{Request: &a2apbv0.Message{MessageId: "m-1", ContextId: "c-1", Role: a2apbv0.Role_ROLE_USER,
		Parts: []*a2apbv0.Part{{Part: &a2apbv0.Part_Text{Text: "hi"}}}}}
	b, err := MarshalLegacy(req)
	if err != nil {
		t.Fatalf("MarshalLegacy() error = %v", err)
	}
	var doc struct {
		Message map[string]any `json:"message"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Message["message_id"] != "m-1" || doc.Message["context_id"] != "c-1" ||
		doc.Message["kind"] != "message" || doc.Message["role"] != "user" || !strings.Contains(string(b), `"kind":"text"`) {
		t.Errorf("MarshalLegacy() = %s, want a legacy message with snake_case keys", b)
	}
	if regexp.MustCompile(`"[a-z]+[A-Z]\w*":`).Match(b) {
		t.Errorf("MarshalLegacy() = %s has a camelCase key", b)
	}
	if _, err := MarshalLegacy(&a2apbv0.GetTaskRequest{Name: "tasks/x"}); err == nil {
		t.Error("MarshalLegacy(GetTaskRequest) error = nil, want: it has no body")
	}

	var ev a2apbv0.StreamResponse
	if err := UnmarshalLegacy([]byte(`{"kind":"status-update","task_id":"t","context_id":"c","final":true,"status":{"state":"completed"}}`), &ev); err != nil {
		t.Fatalf("UnmarshalLegacy(status-update) error = %v", err)
	}
	want := &a2apbv0.StreamResponse{Payload: &a2apbv0.StreamResponse_StatusUpdate{StatusUpdate: &a2apbv0.TaskStatusUpdateEvent{
		TaskId: "t", ContextId: "c", Final: true, Status: &a2apbv0.TaskStatus{State: a2apbv0.TaskState_TASK_STATE_COMPLETED}}}}
	if !proto.Equal(&ev, want) {
		t.Errorf("UnmarshalLegacy(status-update) = %v, want %v", &ev, want)
	}
	var res a2apbv0.SendMessageResponse
	if err := UnmarshalLegacy([]byte(`{"kind":"message","message_id":"m","role":"agent","parts":[{"kind":"text","text":"yo"}]}`), &res); err != nil ||
		res.GetMsg().GetMessageId() != "m" || res.GetMsg().GetParts()[0].GetText() != "yo" {
		t.Errorf("UnmarshalLegacy(message) = %v, %v; want message m saying yo", &res, err)
	}
	for _, bad := range []string{`{"kind":"status-update","task_id":"t","status":{"state":"completed"}}`, `null`, `{"kind":"task"`, `[]`} {
		if err := UnmarshalLegacy([]byte(bad), &a2apbv0.SendMessageResponse{}); err == nil {
			t.Errorf("UnmarshalLegacy(%s) into a SendMessageResponse error = nil", bad)
		}
	}
}

// FuzzLegacyAnswer: any answer body goes through the key rewrite and the legacy types
// without a panic, into each message the client reads.
func FuzzLegacyAnswer(f *testing.F) {
	f.Add([]byte(`{"kind":"task","id":"t","context_id":"c","status":{"state":"working"}}`))
	f.Add([]byte(`{"kind":"artifact-update","task_id":"t","artifact":{"artifact_id":"a","parts":[{"kind":"file","file":{"uri":"x"}}]}}`))
	f.Add([]byte(`{"kind":"message","message_id":"m","Message_ID":"n","__":1,"_a":{"b_":[{"ü_ß":2}]}}`))
	f.Add([]byte(`{"kind":`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, m := range []proto.Message{&a2apbv0.SendMessageResponse{}, &a2apbv0.StreamResponse{}, &a2apbv0.Task{}} {
			_ = UnmarshalLegacy(body, m)
		}
	})
}
