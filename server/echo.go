package server

import (
	"context"
	"iter"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Echo is the AgentExecutor `a2abind serve` runs by default: it completes every task
// with one artifact echoing the text of the user's message, after a working status
// update (so streams see several events).
type Echo struct{}

var _ a2asrv.AgentExecutor = Echo{}

// EchoSkill is the skill the derived card declares for Echo.
var EchoSkill = a2a.AgentSkill{ID: "echo", Name: "Echo", Description: "Echoes the text of the message", Tags: []string{"echo"}}

// Execute echoes the message text.
func (Echo) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		ev := a2a.NewArtifactEvent(ec, a2a.NewTextPart(messageText(ec.Message)))
		ev.LastChunk = true
		if !yield(ev, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

// Cancel moves the task to canceled.
func (Echo) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func messageText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var parts []string
	for _, p := range m.Parts {
		if t := p.Text(); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}
