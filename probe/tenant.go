package probe

import (
	"fmt"
	"net/url"
	"strings"

	"google.golang.org/grpc/codes"
)

// tenantRefused reports whether an A2A error answer to the lookup is the agent refusing
// the tenant it carried (the card's declared tenant, or none): an InvalidParams answer
// (JSON-RPC -32602, gRPC INVALID_ARGUMENT, HTTP 400 or ErrorInfo INVALID_PARAMS) whose
// message speaks of a tenant. Such an interface is not `served` for the card's clients:
// they send the same tenant (A2A §8.3.2 rule 4) and get the same refusal. The note says
// which tenant was sent. Other InvalidParams answers still prove a handler is there.
func tenantRefused(a attempt, tenant string) (string, bool) {
	invalid := a.ev.JSONRPCCode == -32602 || a.ev.Reason == "INVALID_PARAMS" ||
		(a.ev.GRPC && a.ev.GRPCCode == codes.InvalidArgument) ||
		(!a.ev.GRPC && a.ev.JSONRPCCode == 0 && a.ev.HTTPStatus == 400)
	if !invalid || !strings.Contains(strings.ToLower(a.message), "tenant") {
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
