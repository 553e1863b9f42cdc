package probe_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	grpccodes "google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/servertest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/wire"
)

// TestTenantLookups: the lookup carries the declared tenant on every binding (JSON-RPC
// params.tenant, gRPC GetTaskRequest.tenant, HTTP+JSON path prefix), so a tenanted agent
// probes served; a declared tenant the agent refuses, or none where it needs one, is
// agent_error with the tenant named, never served; a tenant prefix where nothing is
// mounted is not_found with the tenant named.
func TestTenantLookups(t *testing.T) {
	tenanted := servertest.Start(t, lab.Echo{}, server.WithGRPCAddr("127.0.0.1:0"), server.WithTenant("acme"))
	multi := servertest.Start(t, lab.Echo{}, server.WithGRPCAddr("127.0.0.1:0"), server.WithTenant("locations/eu/projects/p-1"))
	plain := servertest.Start(t, lab.Echo{}, server.WithGRPCAddr("127.0.0.1:0"))
	type row struct {
		name    string
		iface   card.Interface
		want    wire.Outcome
		wantMsg string
	}
	var tests []row
	for _, iface := range tenanted.Interfaces() {
		b := string(iface.Binding) + " "
		tests = append(tests, row{b + "declared tenant served", iface, wire.Served, ""})
		other := iface
		other.Tenant = "globex"
		tests = append(tests, row{b + "another tenant declared", other, wire.AgentError, `the card declares tenant "globex" for this interface and it was sent, but the agent asks for another`})
		none := iface
		none.Tenant = ""
		tests = append(tests, row{b + "no tenant declared", none, wire.AgentError, "the card declares none for this interface, so none was sent, and the agent asks for one"})
	}
	for _, iface := range multi.Interfaces() {
		tests = append(tests, row{string(iface.Binding) + " tenant of several segments", iface, wire.Served, ""})
	}
	for _, iface := range plain.Interfaces() {
		withTenant := iface
		withTenant.Tenant = "acme"
		switch iface.Binding {
		case httpjson: // the tenant prefix leads nowhere
			tests = append(tests, row{"HTTP+JSON tenant declared, agent routes none", withTenant, wire.NotFound, `the declared tenant "acme" was sent as the path prefix`})
		default: // a2a-go's handlers accept any tenant
			tests = append(tests, row{string(iface.Binding) + " tenant declared, agent ignores it", withTenant, wire.Served, ""})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := probe.Interface(t.Context(), tt.iface, probe.WithTimeout(5*time.Second))
			if r.Outcome != tt.want || !strings.Contains(r.Detail, tt.wantMsg) {
				t.Errorf("Interface(%s, tenant %q) = %s (%s), want %s with %q", tt.iface, tt.iface.Tenant, r.Outcome, r.Detail, tt.want, tt.wantMsg)
			}
			if tt.want != wire.Served && !strings.Contains(r.Detail, "tenant") {
				t.Errorf("Interface(%s) detail %q does not name the tenant", tt.iface, r.Detail)
			}
		})
	}
}

// TestTenantRefusalIsAnInterfaceNotServed: Diagnose reports a refused tenant as an
// error finding, so `a2abind probe` fails the card.
func TestTenantRefusalIsAnInterfaceNotServed(t *testing.T) {
	srv := servertest.Start(t, lab.Echo{}, server.WithGRPCAddr("127.0.0.1:0"), server.WithTenant("acme"))
	c := &card.Card{Shape: card.ShapeV1, Name: "x"}
	for i, iface := range srv.Interfaces() {
		iface.Tenant = "globex"
		iface.Source = card.Supported(i)
		iface.Preferred = i == 0
		c.Interfaces = append(c.Interfaces, iface)
	}
	results := probe.Card(t.Context(), c, probe.WithTimeout(5*time.Second))
	report := probe.Diagnose(c, results)
	var notServed int
	for _, f := range report.Findings {
		if f.Code == card.CodeInterfaceNotServed {
			notServed++
			if !strings.Contains(f.Message, "refuses the tenant") || !strings.Contains(f.Fix, "declare the tenant") {
				t.Errorf("finding %+v does not say the tenant is refused and how to fix it", f)
			}
		}
	}
	if notServed != len(c.Interfaces) || report.OK() {
		t.Errorf("Diagnose() findings = %+v, want %d %s", report.Findings, len(c.Interfaces), card.CodeInterfaceNotServed)
	}
}

// TestTenantPathRouting: a stock a2a-go agent routing tenants by path prefix
// (lab.WithTenantREST, a2asrv.NewTenantRESTHandler) is served for any declared tenant;
// when the card declares none the lookup gets a plain 404, which is not_found with the
// detail saying that the agent answers under a tenant prefix.
func TestTenantPathRouting(t *testing.T) {
	a := labtest.Start(t, lab.WithTenantREST(lab.PathREST))
	plain := labtest.Start(t, lab.WithREST(card.V1, lab.PathREST))
	tests := []struct {
		name    string
		iface   card.Interface
		want    wire.Outcome
		wantMsg string
		notMsg  string
	}{
		{"tenant declared", card.Interface{URL: a.URL(lab.PathREST), Binding: httpjson, ProtocolVersion: card.V1, Tenant: "acme"}, wire.Served, "", ""},
		{"no tenant declared", card.Interface{URL: a.URL(lab.PathREST), Binding: httpjson, ProtocolVersion: card.V1}, wire.NotFound,
			"the agent routes tenants by path and the card declares no tenant for this interface", ""},
		{"no tenant routing, none declared", card.Interface{URL: plain.URL(lab.PathREST) + "/nothing", Binding: httpjson, ProtocolVersion: card.V1}, wire.NotFound,
			"", "routes tenants"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := probe.Interface(t.Context(), tt.iface, probe.WithTimeout(5*time.Second))
			if r.Outcome != tt.want || !strings.Contains(r.Detail, tt.wantMsg) || (tt.notMsg != "" && strings.Contains(r.Detail, tt.notMsg)) {
				t.Errorf("Interface(%s, tenant %q) = %s (%s), want %s with %q", tt.iface, tt.iface.Tenant, r.Outcome, r.Detail, tt.want, tt.wantMsg)
			}
		})
	}
}

// TestTenantRefusalEvidence pins what the tenant check in the probe builds on: each
// binding's InvalidParams answer classifies as AgentError (an A2A handler answered),
// which the probe folds into Served unless the message speaks of the tenant.
func TestTenantRefusalEvidence(t *testing.T) {
	tests := []struct {
		name string
		ev   wire.Evidence
	}{
		{"JSON-RPC -32602", wire.Evidence{Binding: jsonrpc, HTTPStatus: 200, JSONRPCCode: -32602, Reason: "INVALID_PARAMS", Framing: jsonrpc}},
		{"gRPC INVALID_ARGUMENT", wire.Evidence{Binding: grpc, GRPC: true, GRPCCode: grpccodes.InvalidArgument, Reason: "INVALID_PARAMS", Framing: grpc}},
		{"HTTP+JSON 400 INVALID_PARAMS", wire.Evidence{Binding: httpjson, HTTPStatus: 400, ContentType: "application/json", Reason: "INVALID_PARAMS", Framing: httpjson}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := wire.Classify(tt.ev)
			if diff := cmp.Diff(wire.AgentError, got); diff != "" {
				t.Errorf("Classify() (-want +got):\n%s", diff)
			}
		})
	}
}
