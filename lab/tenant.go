package lab

import (
	"context"
	"iter"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/bindtable"
)

// TenantTemplate is the a2a-go path template WithTenantREST mounts with: one path
// segment of tenant before the HTTP+JSON routes.
const TenantTemplate = "/{*}"

// WithTenantREST mounts the v1.0 HTTP+JSON binding at path behind a tenant path prefix,
// the way a stock a2a-go multi-tenant agent serves it (a2asrv.NewTenantRESTHandler with
// TenantTemplate): {path}/{tenant}/tasks/{id} and the other routes, any one-segment
// tenant accepted and handed to the executor (ExecutorContext.Tenant), nothing checked.
// Without a tenant ({path}/tasks/{id}) nothing is found: HTTP 404. The card (WithCard)
// says what the agent declares.
func WithTenantREST(path string) Option {
	return func(c *config) { c.tenantPaths = append(c.tenantPaths, path) }
}

// mountTenantREST mounts the WithTenantREST bindings on mux.
func (a *Agent) mountTenantREST(mux *http.ServeMux, handler a2asrv.RequestHandler) {
	rest := bindtable.Table[bindtable.Key{Binding: a2a.TransportProtocolHTTPJSON, Version: card.V1}]
	for _, p := range a.cfg.tenantPaths {
		mux.Handle(p+"/", http.StripPrefix(p, a.requireToken(rest.Tenant(TenantTemplate, handler))))
	}
}

// TenantEcho is an executor that completes every task with one artifact reading
// "tenant=<the tenant the executor saw>" (a2asrv.ExecutorContext.Tenant, which a2a-go fills
// from the request), so a test can tell which tenant reached the agent.
type TenantEcho struct{}

var _ a2asrv.AgentExecutor = TenantEcho{}

// Execute answers with the tenant.
func (TenantEcho) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		ev := a2a.NewArtifactEvent(ec, a2a.NewTextPart("tenant="+ec.Tenant))
		ev.LastChunk = true
		if !yield(ev, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

// Cancel moves the task to canceled.
func (TenantEcho) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}
