package server

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
)

// conforming is the request handler every binding calls: a2a-go's, corrected where it
// departs from the specification.
//   - SubscribeToTask on a task that is not terminal attaches even when no execution is
//     running (input-required, auth-required: §3.1.6 "any task that is not in a terminal
//     state"): the stored task first, then the events of the task's next execution. On a
//     terminal task it is UnsupportedOperationError, before any event (the transports
//     answer it as a plain error, firstEvent).
//   - SendMessage honours configuration.historyLength on the task it returns (§3.2.4).
//   - CancelTask on a terminal task is TaskNotCancelable (a2a-go answers a canceled task
//     with the task).
//   - In 0.3, a negative historyLength is InvalidParams.
type conforming struct {
	a2asrv.RequestHandler
	execs *executions
}

// refusal is a2a-go's own answer to SubscribeToTask of a task GetTask did not find,
// when it refuses the method (capability checks: streaming not declared; a call
// interceptor), else notFound: a card that does not declare streaming is not contradicted
// by a TaskNotFound answer.
func (h *conforming) refusal(ctx context.Context, req *a2a.SubscribeToTaskRequest, notFound error) error {
	for _, err := range h.RequestHandler.SubscribeToTask(ctx, req) {
		if err != nil && !errors.Is(err, a2a.ErrTaskNotFound) {
			return err
		}
		break
	}
	return notFound
}

// SubscribeToTask attaches to the task's running execution, or to its next one.
func (h *conforming) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if req == nil {
			yield(nil, a2a.ErrInvalidParams)
			return
		}
		req = withGRPCTenant(ctx, req) // grpc.go
		task, err := h.GetTask(ctx, &a2a.GetTaskRequest{Tenant: req.Tenant, ID: req.ID})
		if err != nil {
			if errors.Is(err, a2a.ErrTaskNotFound) {
				err = h.refusal(ctx, req, err)
			}
			yield(nil, err)
			return
		}
		if task.Status.State.Terminal() {
			yield(nil, fmt.Errorf("task %s is %s, a terminal state: there is nothing to subscribe to: %w", task.ID, task.Status.State, a2a.ErrUnsupportedOperation))
			return
		}
		// Registered before asking a2a-go, so that an execution starting in between is
		// not missed.
		next := h.execs.watch(task.ID)
		defer next.close()
		// stale: a2a-go attached to an execution that was ending: it gave the task as
		// stored, in the same state, and nothing new (repeats of it are not passed on).
		n, stale := 0, true
		for ev, err := range h.RequestHandler.SubscribeToTask(ctx, req) {
			if n == 0 && err != nil && errors.Is(err, a2a.ErrTaskNotFound) {
				break // the task exists (above): no execution is running
			}
			t, isTask := ev.(*a2a.Task)
			same := err == nil && isTask && t.Status.State == task.Status.State
			if n > 0 && stale && same {
				continue
			}
			stale = stale && same
			n++
			if !yield(ev, err) || err != nil {
				return
			}
		}
		switch {
		case n > 0 && !stale:
			return // a2a-go's subscription ran; it ended with the execution
		case n == 0:
			if !yield(task, nil) {
				return
			}
		}
		// No execution, or one that was ending as a2a-go attached (it gave the stored
		// task and nothing more): the events of the next one follow.
		for ev, err := range next.events(ctx) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// SendMessage trims the returned task's history to configuration.historyLength.
func (h *conforming) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	var limit *int
	if req != nil && req.Config != nil {
		limit = req.Config.HistoryLength
	}
	if err := checkHistoryLength(ctx, limit); err != nil {
		return nil, err
	}
	res, err := h.RequestHandler.SendMessage(ctx, req)
	if task, ok := res.(*a2a.Task); ok && err == nil && limit != nil && *limit >= 0 {
		t := *task
		t.History = lastMessages(t.History, *limit)
		return &t, nil
	}
	return res, err
}

// SendStreamingMessage refuses a negative historyLength in 0.3.
func (h *conforming) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if req != nil && req.Config != nil {
		if err := checkHistoryLength(ctx, req.Config.HistoryLength); err != nil {
			return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
		}
	}
	return h.RequestHandler.SendStreamingMessage(ctx, req)
}

// GetTask refuses a negative historyLength in 0.3.
func (h *conforming) GetTask(ctx context.Context, req *a2a.GetTaskRequest) (*a2a.Task, error) {
	if req != nil {
		if err := checkHistoryLength(ctx, req.HistoryLength); err != nil {
			return nil, err
		}
	}
	return h.RequestHandler.GetTask(ctx, req)
}

// ListTasks refuses a negative historyLength in 0.3.
func (h *conforming) ListTasks(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if req != nil {
		if err := checkHistoryLength(ctx, req.HistoryLength); err != nil {
			return nil, err
		}
	}
	return h.RequestHandler.ListTasks(ctx, req)
}

// CancelTask refuses a task in a terminal state.
func (h *conforming) CancelTask(ctx context.Context, req *a2a.CancelTaskRequest) (*a2a.Task, error) {
	if req != nil && req.ID != "" {
		task, err := h.RequestHandler.GetTask(ctx, &a2a.GetTaskRequest{Tenant: req.Tenant, ID: req.ID})
		if err != nil {
			return nil, err
		}
		if task.Status.State.Terminal() {
			return nil, fmt.Errorf("task %s is already %s: %w", task.ID, task.Status.State, a2a.ErrTaskNotCancelable)
		}
	}
	return h.RequestHandler.CancelTask(ctx, req)
}

// checkHistoryLength refuses a negative historyLength in a 0.3 call (the 0.3 schema's
// minimum is 0); 1.0 leaves it to the server, which reads it as no limit.
func checkHistoryLength(ctx context.Context, n *int) error {
	if n == nil || *n >= 0 || callVersion(ctx) != card.V03 {
		return nil
	}
	return fmt.Errorf("historyLength %d is negative: %w", *n, a2a.ErrInvalidParams)
}

// callVersion is the protocol version of the call: its A2A-Version service parameter,
// "0.3" without one (the gates let only a route's own version through).
func callVersion(ctx context.Context) string {
	if cc, ok := a2asrv.CallContextFrom(ctx); ok && cc.ServiceParams() != nil {
		if vs, ok := cc.ServiceParams().Get(a2a.SvcParamVersion); ok && len(vs) > 0 {
			return versionOrDefault(vs[0])
		}
	}
	return card.V03
}

// lastMessages is history cut to its last n >= 0 messages (none for 0).
func lastMessages(history []*a2a.Message, n int) []*a2a.Message {
	switch {
	case n == 0:
		return []*a2a.Message{}
	case n < len(history):
		return history[len(history)-n:]
	}
	return history
}
