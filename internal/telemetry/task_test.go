package telemetry_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/internal/telemetry"
)

func TestTask(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want map[string]string
	}{
		{"task", &a2a.Task{ID: "t1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}},
			map[string]string{"a2a.task.id": "t1", "a2a.task.state": "TASK_STATE_COMPLETED"}},
		{"message of a task", &a2a.Message{TaskID: "t2"}, map[string]string{"a2a.task.id": "t2"}},
		{"status update", &a2a.TaskStatusUpdateEvent{TaskID: "t3", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}},
			map[string]string{"a2a.task.id": "t3", "a2a.task.state": "TASK_STATE_WORKING"}},
		{"artifact update", &a2a.TaskArtifactUpdateEvent{TaskID: "t4"}, map[string]string{"a2a.task.id": "t4"}},
		{"message without task", &a2a.Message{}, map[string]string{}},
		{"nil task", (*a2a.Task)(nil), map[string]string{}},
		{"nil event", (*a2a.TaskStatusUpdateEvent)(nil), map[string]string{}},
		{"nil", nil, map[string]string{}},
		{"other", "text", map[string]string{}},
	} {
		got := map[string]string{}
		for _, kv := range telemetry.Task(tc.v) {
			got[string(kv.Key)] = kv.Value.String()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: Task() (-want +got):\n%s", tc.name, diff)
		}
	}
}
