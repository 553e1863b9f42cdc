package lab_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestWithTenantREST: a2a-go's client puts the endpoint's tenant in the path and the
// executor sees it; without a tenant the route is not found.
func TestWithTenantREST(t *testing.T) {
	a := labtest.Start(t, lab.WithTenantREST(lab.PathREST), lab.WithExecutor(lab.TenantEcho{}))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for _, tenant := range []string{"acme", "globex"} {
		iface := &a2a.AgentInterface{URL: a.URL(lab.PathREST), ProtocolBinding: lab.HTTPJSON, ProtocolVersion: card.V1, Tenant: tenant}
		if got, err := labtest.SendText(ctx, iface); err != nil || got != "tenant="+tenant {
			t.Errorf("SendMessage(tenant %q) = %q, %v, want tenant=%s", tenant, got, err, tenant)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL(lab.PathREST)+"/tasks/x", nil)
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
