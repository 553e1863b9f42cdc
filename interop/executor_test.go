package interop

import (
	"context"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/lab"
)

// holdBudget bounds how long a held task waits for its cancel.
const holdBudget = 30 * time.Second

// holdEcho is lab.Echo, except that a message whose text starts with "hold" leaves its
// task working until it is canceled (or holdBudget passes), so that cancel has a task
// to cancel. It is the same contract as the echo executor of interop/js/server.mjs.
type holdEcho struct {
	mu   sync.Mutex
	held map[a2a.TaskID]chan struct{}
}

var _ a2asrv.AgentExecutor = (*holdEcho)(nil)

func newHoldEcho() *holdEcho { return &holdEcho{held: map[a2a.TaskID]chan struct{}{}} }

// Execute echoes, or holds.
func (h *holdEcho) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	if !strings.HasPrefix(lab.MessageText(ec.Message), "hold") {
		return lab.Echo{}.Execute(ctx, ec)
	}
	return func(yield func(a2a.Event, error) bool) {
		release := make(chan struct{})
		h.mu.Lock()
		h.held[ec.TaskID] = release
		h.mu.Unlock()
		defer func() {
			h.mu.Lock()
			delete(h.held, ec.TaskID)
			h.mu.Unlock()
		}()
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		timer := time.NewTimer(holdBudget)
		defer timer.Stop()
		select {
		case <-release: // Cancel publishes the canceled status
		case <-ctx.Done():
		case <-timer.C:
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

// Cancel moves the task to canceled and releases a held execution.
func (h *holdEcho) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		h.mu.Lock()
		release, ok := h.held[ec.TaskID]
		delete(h.held, ec.TaskID)
		h.mu.Unlock()
		if ok {
			defer close(release)
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
