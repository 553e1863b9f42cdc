// Package echo is the echo agent shared by `a2abind serve` and the lab's
// agents (lab.Echo): it completes every task with one artifact echoing the message text.
package echo

import (
	"context"
	"iter"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Executor completes every task with one artifact echoing the text of the user's
// message, after a working status update (so streams see several events).
type Executor struct{}

var _ a2asrv.AgentExecutor = Executor{}

// What a card derived for Executor says of it.
const (
	Name        = "a2abind-echo"
	Description = "a2abind echo agent: answers with the text it was sent"
	Version     = "1.0.0"
)

// Skill is the skill a card declares for Executor.
var Skill = a2a.AgentSkill{ID: "echo", Name: "Echo", Description: "Echoes the text of the message", Tags: []string{"echo"}}

// Execute echoes the message text.
func (Executor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		ev := a2a.NewArtifactEvent(ec, a2a.NewTextPart(MessageText(ec.Message)))
		ev.LastChunk = true
		if !yield(ev, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

// Cancel moves the task to canceled.
func (Executor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// MessageText joins the text parts of a message with spaces.
func MessageText(m *a2a.Message) string {
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
