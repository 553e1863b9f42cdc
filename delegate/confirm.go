package delegate

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// lookupBudget bounds the confirming lookup (and it takes at most half of what is left
// of the call's context, and no more than the attempt timeout).
const lookupBudget = 5 * time.Second

// lookup makes the side-effect-free lookup that confirms an answer which needs it
// (wire.NeedsConfirmation: an A2A error or an HTTP status a handler could also have
// given after running the message): a GetTask of a random task id on the same
// interface and protocol version, through the same transport and credentials, judged
// by wire.Judge as the call was (Served only for TaskNotFound, or an error naming the
// random id: a working handler's answer; another A2A error is AgentError).
// wire.Policy.Walk counts the call's answer as proof only when this gets the same
// outcome, and moves a message on after that only to an interface where this is Served.
func (c *Client) lookup(ctx context.Context, iface card.Interface) wire.Outcome {
	budget := lookupBudget
	if d := c.opts.attemptTimeout; d > 0 && d < budget {
		budget = d
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl)/2 < budget {
		budget = time.Until(dl) / 2
	}
	if ctx.Err() != nil || budget < time.Millisecond {
		return wire.Timeout // no time to confirm: the attempt stays ambiguous
	}
	rec := &recorder{}
	sctx, span := c.startLookup(ctx, iface)
	lctx, cancel := context.WithTimeout(withRecorder(sctx, rec), budget)
	defer cancel()
	var req *a2a.GetTaskRequest
	t, err := c.transport(lctx, iface)
	if err == nil {
		req = &a2a.GetTaskRequest{ID: a2a.TaskID("a2abind-lookup-" + rand.Text()), Tenant: tenant("", iface)}
		_, err = t.GetTask(lctx, c.params[iface.Key()], req)
	}
	if err == nil {
		endExchange(span, wire.Served, wire.Evidence{}, "")
		return wire.Served // a task by that id: a handler answered
	}
	ev := rec.evidence(iface.Binding, iface.ProtocolVersion, err)
	ev.NamesTask = req != nil && strings.Contains(err.Error(), string(req.ID)) // as probe reads it
	v := wire.Judge(ev)
	if v.Outcome == wire.Served && !errors.Is(err, a2a.ErrTaskNotFound) && !ev.NamesTask {
		v.Outcome = wire.AgentError // a handler answered, not as one without that task
	}
	endExchange(span, v.Outcome, ev, v.Why)
	return v.Outcome
}
