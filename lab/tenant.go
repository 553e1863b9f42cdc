package lab

import (
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
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
	for _, p := range a.cfg.tenantPaths {
		mux.Handle(p+"/", http.StripPrefix(p, a.requireToken(a2asrv.NewTenantRESTHandler(TenantTemplate, handler))))
	}
}
