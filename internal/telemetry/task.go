package telemetry

import (
	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.opentelemetry.io/otel/attribute"
)

// Task is a2a.task.id and a2a.task.state of an A2A answer or stream event, where it
// names them (a task, a message of a task, a status or artifact update); nil when it
// names none (a nil answer included).
func Task(v any) []attribute.KeyValue {
	var id a2a.TaskID
	var state a2a.TaskState
	switch e := v.(type) {
	case *a2a.Task:
		if e != nil {
			id, state = e.ID, e.Status.State
		}
	case *a2a.Message:
		if e != nil {
			id = e.TaskID
		}
	case *a2a.TaskStatusUpdateEvent:
		if e != nil {
			id, state = e.TaskID, e.Status.State
		}
	case *a2a.TaskArtifactUpdateEvent:
		if e != nil {
			id = e.TaskID
		}
	}
	var kv []attribute.KeyValue
	if id != "" {
		kv = append(kv, A2ATaskID.String(string(id)))
	}
	if state != "" {
		kv = append(kv, A2ATaskState.String(string(state)))
	}
	return kv
}
