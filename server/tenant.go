package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/wire"
)

// Tenant routing (WithTenant). Every interface of the card declares the tenant, and a
// client MUST send that exact value in every request to the interface (A2A §8.3.2
// rule 4): JSON-RPC and gRPC in the request's tenant field, HTTP+JSON as a path prefix
// ({url}/{tenant}/message:send). The HTTP+JSON binding is mounted with a2a-go's
// NewTenantRESTHandler, which puts the path's tenant into the request; on every binding
// a2a-go then carries the request's tenant into a2asrv.CallContext.Tenant() (and the
// executor's ExecutorContext.Tenant), where one call interceptor checks it. A missing
// or different tenant is refused with A2A InvalidParams, naming the tenant served:
// JSON-RPC -32602, gRPC INVALID_ARGUMENT, HTTP+JSON 400; ErrorInfo reason
// INVALID_PARAMS with metadata expectedTenant and tenant (what the request carried).

// maxTenantLen bounds the tenant name.
const maxTenantLen = 256

// errTenant is the A2A error a request for another tenant gets (InvalidParams), from
// wire's A2A error table.
var errTenant = mustA2AError(a2a.ErrInvalidParams)

// validateTenant checks a tenant name given to WithTenant: it is sent as a request field
// and as one or more HTTP path segments, so it must be usable as both.
func validateTenant(name string) error {
	switch {
	case name == "":
		return nil
	case len(name) > maxTenantLen:
		return errorf("tenant is %d bytes long, at most %d", len(name), maxTenantLen)
	case strings.ContainsAny(name, "?#"):
		return errorf("tenant %q contains ? or #: it is an HTTP+JSON path prefix", name)
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return errorf("tenant %q contains white space or a control character", name)
		}
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return errorf("tenant %q has an empty, . or .. path segment: it is an HTTP+JSON path prefix", name)
		}
	}
	return nil
}

// tenantTemplate is the a2a-go path template capturing a tenant of as many path
// segments as the served one: "/{*}", "/{*/*}", ...
func tenantTemplate(name string) string {
	n := strings.Count(name, "/") + 1
	return "/{" + strings.TrimSuffix(strings.Repeat("*/", n), "/") + "}"
}

// tenantText explains a tenant refusal.
func tenantText(want, got string) string {
	msg := fmt.Sprintf("this interface serves tenant %q: send \"tenant\": %q in every request (HTTP+JSON: the path prefix {url}/%s/)", want, want, want)
	if got == "" {
		return msg + "; the request carries no tenant"
	}
	return msg + fmt.Sprintf("; the request carries tenant %q", got)
}

// tenantError is the A2A InvalidParams error a request with another tenant gets.
func tenantError(want, got string) error {
	return a2a.NewError(a2a.ErrInvalidParams, tenantText(want, got)).
		WithErrorInfoMeta(map[string]string{wire.ExpectedTenantKey: want, "tenant": got})
}

// tenantCheck is the call interceptor that refuses every call whose tenant is not the
// served one. a2a-go fills CallContext.Tenant from the request's tenant field (JSON-RPC,
// gRPC) or from the HTTP+JSON path prefix (NewTenantRESTHandler).
type tenantCheck struct {
	a2asrv.PassthroughCallInterceptor
	tenant string
}

// Before refuses a call for another tenant with InvalidParams.
func (t tenantCheck) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if got := cc.Tenant(); got != t.tenant {
		return ctx, nil, tenantError(t.tenant, got)
	}
	return ctx, nil, nil
}

// tenantREST mounts the HTTP+JSON handler under the tenant path prefix with a2a-go's
// NewTenantRESTHandler. A path whose prefix is not the served tenant (another tenant, or
// none: a route such as /message:send straight under the interface URL) is answered
// with HTTP 400 InvalidParams naming the tenant, rather than a bare 404.
func (srv *Server) tenantREST(newHandler func(string, a2asrv.RequestHandler, ...a2asrv.TransportOption) http.Handler) http.Handler {
	want := srv.o.tenant
	next := newHandler(tenantTemplate(want), srv.handler)
	n := strings.Count(want, "/") + 1
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		segs := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if len(segs) > n && strings.Join(segs[:n], "/") == want {
			next.ServeHTTP(w, r)
			return
		}
		got := ""
		if len(segs) > n && !isRESTRoute(segs[0]) {
			got = strings.Join(segs[:n], "/")
		}
		writeRESTError(w, errTenant, tenantText(want, got),
			map[string]string{wire.ExpectedTenantKey: want, "tenant": got})
	})
}

// isRESTRoute reports whether a first path segment is one of the HTTP+JSON binding's
// own routes (so the request carries no tenant prefix at all).
func isRESTRoute(seg string) bool {
	switch seg {
	case "message:send", "message:stream", "tasks", "extendedAgentCard":
		return true
	}
	return false
}
