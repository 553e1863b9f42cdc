package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
)

// probeTenant is the tenant path prefix of the lookup that tells an agent routing
// tenants by path (a2a-go's NewTenantRESTHandler) from one with nothing mounted.
const probeTenant = "a2abind-probe-tenant"

// tenantRefused reports whether an A2A error answer to the lookup is the agent refusing
// the tenant it carried (the card's declared tenant, or none): wire.Evidence.TenantRefused. Such an interface is not `served` for the card's clients:
// they send the same tenant (A2A §8.3.2 rule 4) and get the same refusal. The note says
// which tenant was sent. Other InvalidParams answers still prove a handler is there.
func tenantRefused(a attempt, tenant string) (string, bool) {
	if !a.ev.TenantRefused() {
		return "", false
	}
	if tenant == "" {
		return "the agent refused the lookup's tenant: the card declares none for this interface, so none was sent, and the agent asks for one", true
	}
	return fmt.Sprintf("the agent refused the lookup's tenant: the card declares tenant %q for this interface and it was sent, but the agent asks for another", tenant), true
}

// tenantPath renders a tenant as the HTTP+JSON path prefix: each of its segments
// escaped, the slashes between them kept (a2a-go's client joins it into the path).
func tenantPath(tenant string) string {
	segs := strings.Split(tenant, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// tenantPrefixNote is asked when an HTTP+JSON 1.0 interface that declares no tenant
// answered the lookup with a plain 404: it repeats the lookup under a tenant path
// prefix. If HTTP+JSON answers there (TaskNotFound), the agent routes tenants by path
// and the card forgets to declare one: clients, sending none, get the 404.
func tenantPrefixNote(ctx context.Context, req request, base, id string) []string {
	b := getTask(ctx, req, base+"/"+probeTenant+"/tasks/"+id, http.Header{
		"Accept":            {"application/a2a+json, application/json"},
		a2a.SvcParamVersion: {card.V1},
	})
	if b.ev.Framing != a2a.TransportProtocolHTTPJSON || b.ev.Reason != a2a.ErrorReason(a2a.ErrTaskNotFound) {
		return nil
	}
	return []string{fmt.Sprintf("with a tenant path prefix HTTP+JSON 1.0 answers (%s -> %s): the agent routes tenants by path and the card declares no tenant for this interface", b.sent, b.seen)}
}
