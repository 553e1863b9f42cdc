package lab

import (
	"context"
	"iter"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
)

// tenantSeen answers every message with the tenant the executor saw.
type tenantSeen struct{}

func (tenantSeen) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("tenant="+ec.Tenant)), nil)
	}
}

func (tenantSeen) Cancel(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(func(a2a.Event, error) bool) {}
}

// TestWithTenantREST: a2a-go's client puts the endpoint's tenant in the path and the
// executor sees it; without a tenant the route is not found.
func TestWithTenantREST(t *testing.T) {
	a := start(t, WithTenantREST(PathREST), WithExecutor(tenantSeen{}))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, tenant := range []string{"acme", "globex"} {
		iface := &a2a.AgentInterface{URL: a.URL(PathREST), ProtocolBinding: HTTPJSON, ProtocolVersion: card.V1, Tenant: tenant}
		c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))})
		c.Destroy()
		msg, ok := res.(*a2a.Message)
		if err != nil || !ok || len(msg.Parts) == 0 || msg.Parts[0].Text() != "tenant="+tenant {
			t.Errorf("SendMessage(tenant %q) = %v, %v, want a message tenant=%s", tenant, res, err, tenant)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL(PathREST)+"/tasks/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := a.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET without a tenant = %d, want 404", resp.StatusCode)
	}
}
