package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

func startTenant(t *testing.T, tenant string, opts ...Option) *Server {
	t.Helper()
	srv, err := New(lab.TenantEcho{}, append([]Option{echoInfo, WithTenant(tenant), WithGRPCAddr("127.0.0.1:0"), WithGRPCOnHTTP()}, opts...)...)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	return srv
}

// sendAs sends "ping" through a real a2a-go client bound to iface with the given tenant
// on the endpoint (a2a-go copies it into every request) and returns the artifact text.
func sendAs(ctx context.Context, iface card.Interface, tenant string) (string, error) {
	ep := &a2a.AgentInterface{URL: iface.URL, ProtocolBinding: iface.Binding, ProtocolVersion: a2a.ProtocolVersion(iface.ProtocolVersion), Tenant: tenant}
	return labtest.SendText(ctx, ep, grpcInsecure)
}

// TestTenantServedOnEveryBinding: with WithTenant every derived interface declares the
// tenant, the self-check (probe, sending the tenant) finds each one served, a2a-go's
// client reaches the executor with the tenant on JSON-RPC, gRPC (own listener and on the
// HTTP port) and HTTP+JSON (path prefix), and a missing or different tenant is refused
// with InvalidParams on every binding.
func TestTenantServedOnEveryBinding(t *testing.T) {
	for _, tenant := range []string{"acme", "locations/eu/projects/p-1"} {
		t.Run(tenant, func(t *testing.T) {
			srv := startTenant(t, tenant)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			c, err := card.Fetch(ctx, srv.BaseURL())
			if err != nil {
				t.Fatalf("card.Fetch() error = %v", err)
			}
			if got, want := len(c.Interfaces), 4; got != want {
				t.Fatalf("card interfaces = %d, want %d: %v", got, want, c.Interfaces)
			}
			for _, iface := range c.Interfaces {
				if iface.Tenant != tenant {
					t.Errorf("card interface %s tenant = %q, want %q", iface, iface.Tenant, tenant)
				}
			}
			for _, iface := range srv.Interfaces() {
				if iface.Tenant != tenant {
					t.Errorf("Interfaces() %s tenant = %q, want %q", iface, iface.Tenant, tenant)
				}
			}
			for _, r := range probe.Card(ctx, c) {
				if r.Outcome != wire.Served {
					t.Errorf("probe %s = %s (%s), want served", r.Interface, r.Outcome, r.Detail)
				}
			}
			for _, iface := range c.Interfaces {
				if got, err := sendAs(ctx, iface, tenant); err != nil || got != "tenant="+tenant {
					t.Errorf("SendMessage(%s, tenant %q) = %q, %v, want tenant=%s", iface, tenant, got, err, tenant)
				}
				for _, wrong := range []string{"", "other"} {
					_, err := sendAs(ctx, iface, wrong)
					if !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), `serves tenant "`+tenant+`"`) {
						t.Errorf("SendMessage(%s, tenant %q) error = %v, want InvalidParams naming tenant %q", iface, wrong, err, tenant)
					}
				}
			}
		})
	}
}

// TestTenantRefusalsOnTheWire pins the refusal of each binding: JSON-RPC -32602, gRPC
// INVALID_ARGUMENT, HTTP+JSON 400, each with ErrorInfo INVALID_PARAMS and a message
// naming the served tenant and what the request carried.
func TestTenantRefusalsOnTheWire(t *testing.T) {
	srv := startTenant(t, "acme")
	base := srv.LocalBaseURL()
	v1 := []string{"A2A-Version", "1.0"}

	t.Run("JSON-RPC", func(t *testing.T) {
		tests := []struct {
			name, body string
			want       rpcError
			wantMsg    string
		}{
			{"served tenant", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"none","tenant":"acme"}}`,
				rpcError{ID: 1.0, Code: -32001, Reason: "TASK_NOT_FOUND"}, ""},
			{"no tenant", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"none"}}`,
				rpcError{ID: 1.0, Code: -32602, Reason: "INVALID_PARAMS"}, `serves tenant "acme"`},
			{"other tenant", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"none","tenant":"globex"}}`,
				rpcError{ID: 1.0, Code: -32602, Reason: "INVALID_PARAMS"}, `the request carries tenant "globex"`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, _, body := post(t, base+PathJSONRPC, "application/json", tt.body, v1...)
				got, msg := parseRPC(t, body)
				if got != tt.want || !strings.Contains(msg, tt.wantMsg) {
					t.Errorf("answer = %+v %q, want %+v with %q", got, msg, tt.want, tt.wantMsg)
				}
			})
		}
	})

	t.Run("gRPC", func(t *testing.T) {
		for _, addr := range []string{srv.GRPCAddr(), srv.HTTPAddr()} {
			client := a2apb.NewA2AServiceClient(grpcConn(t, addr))
			tests := []struct {
				tenant     string
				wantCode   codes.Code
				wantReason string
				wantMsg    string
			}{
				{"acme", codes.NotFound, "TASK_NOT_FOUND", ""},
				{"", codes.InvalidArgument, "INVALID_PARAMS", "the request carries no tenant"},
				{"globex", codes.InvalidArgument, "INVALID_PARAMS", `the request carries tenant "globex"`},
			}
			for _, tt := range tests {
				ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(t.Context(), "a2a-version", "1.0"), 5*time.Second)
				_, err := client.GetTask(ctx, &a2apb.GetTaskRequest{Id: "none", Tenant: tt.tenant})
				cancel()
				st := status.Convert(err)
				if st.Code() != tt.wantCode || errorInfoReason(st) != tt.wantReason || !strings.Contains(st.Message(), tt.wantMsg) {
					t.Errorf("GetTask at %s, tenant %q = %s %s %q, want %s %s with %q", addr, tt.tenant, st.Code(), errorInfoReason(st), st.Message(), tt.wantCode, tt.wantReason, tt.wantMsg)
				}
			}
		}
	})

	t.Run("HTTP+JSON", func(t *testing.T) {
		tests := []struct {
			name, path string
			wantStatus int
			wantBody   []string
		}{
			{"served tenant", "/acme/tasks/none", http.StatusNotFound, []string{"TASK_NOT_FOUND"}},
			{"no tenant", "/tasks/none", http.StatusBadRequest, []string{"INVALID_PARAMS", `serves tenant \"acme\"`, "the request carries no tenant"}},
			{"no tenant, send", "/message:send", http.StatusBadRequest, []string{"INVALID_PARAMS", "the request carries no tenant"}},
			{"other tenant", "/globex/tasks/none", http.StatusBadRequest, []string{"INVALID_PARAMS", `the request carries tenant \"globex\"`}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, _, body := get(t, base+PathREST+tt.path, v1...)
				if code != tt.wantStatus {
					t.Fatalf("GET %s = %d %s, want %d", tt.path, code, body, tt.wantStatus)
				}
				for _, w := range tt.wantBody {
					if !strings.Contains(body, w) {
						t.Errorf("GET %s body = %s, want it to contain %s", tt.path, body, w)
					}
				}
			})
		}
	})
}

// TestTenantCardInvariant: a hand-written card's tenants are verified like the rest of
// the invariant: each interface must declare exactly the served tenant.
func TestTenantCardInvariant(t *testing.T) {
	withTenant := func(tenants ...string) func(a addrs) any {
		return func(a addrs) any {
			urls := []struct {
				url     string
				binding a2a.TransportProtocol
			}{{a.url(PathJSONRPC), jsonrpc}, {a.grpc, grpcB}, {a.url(PathREST), httpjson}}
			ac := &a2a.AgentCard{Name: "x", Version: "1.0.0"}
			for i, u := range urls {
				ac.SupportedInterfaces = append(ac.SupportedInterfaces, &a2a.AgentInterface{
					URL: u.url, ProtocolBinding: u.binding, ProtocolVersion: "1.0", Tenant: tenants[i],
				})
			}
			return ac
		}
	}
	tests := []struct {
		name    string
		served  string
		card    func(a addrs) any
		wantErr []string // empty: accepted
	}{
		{"every interface declares the served tenant", "acme", withTenant("acme", "acme", "acme"), nil},
		{"no tenant declared for a tenanted server", "acme", withTenant("acme", "", "acme"),
			[]string{"supportedInterfaces[1]", `no tenant is declared, but this server serves tenant "acme"`}},
		{"another tenant declared", "acme", withTenant("acme", "acme", "globex"),
			[]string{"supportedInterfaces[2]", `tenant "globex" is declared, but this server serves tenant "acme"`}},
		{"a tenant declared for a server without one", "", withTenant("", "acme", ""),
			[]string{"supportedInterfaces[1]", `tenant "acme" is declared, but this server routes no tenant`}},
		{"an address problem is reported before the tenant", "acme", func(a addrs) any {
			c := withTenant("", "acme", "acme")(a).(*a2a.AgentCard)
			c.SupportedInterfaces[0].URL = a.url("/elsewhere")
			return c
		}, []string{"supportedInterfaces[0]", "JSONRPC 1.0 is not served at that address"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, g, a := listeners(t)
			srv, err := New(lab.TenantEcho{}, echoInfo, WithListeners(h, g), WithTenant(tt.served), WithCardJSON(mustJSON(t, tt.card(a))))
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("New() error = %v, want accepted", err)
				}
				t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				if err := srv.Start(ctx); err != nil {
					t.Fatalf("Start() error = %v (the self-check must find every tenanted interface served)", err)
				}
				return
			}
			var be *BindingError
			if !errors.As(err, &be) || !errors.Is(err, ErrCardMismatch) {
				t.Fatalf("New() error = %v, want a *BindingError", err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("New() error = %v, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestTenantConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"with v0.3", []Option{WithTenant("acme"), WithV03()}, "v0.3"},
		{"white space", []Option{WithTenant("ac me")}, "white space"},
		{"query character", []Option{WithTenant("acme?x")}, "? or #"},
		{"empty segment", []Option{WithTenant("a//b")}, "empty, . or .."},
		{"leading slash", []Option{WithTenant("/acme")}, "empty, . or .."},
		{"dot-dot segment", []Option{WithTenant("a/../b")}, "empty, . or .."},
		{"too long", []Option{WithTenant(strings.Repeat("a", maxTenantLen+1))}, "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := New(Echo{}, append([]Option{echoInfo}, tt.opts...)...)
			if err == nil {
				_ = srv.Shutdown(context.Background())
				t.Fatalf("New() = nil error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestTenantTemplate(t *testing.T) {
	for name, want := range map[string]string{"acme": "/{*}", "a/b": "/{*/*}", "locations/eu/projects/p": "/{*/*/*/*}"} {
		if got := tenantTemplate(name); got != want {
			t.Errorf("tenantTemplate(%q) = %q, want %q", name, got, want)
		}
	}
}
