//go:debug netdns=go

package probe_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

const (
	jsonrpc  = a2a.TransportProtocolJSONRPC
	grpc     = a2a.TransportProtocolGRPC
	httpjson = a2a.TransportProtocolHTTPJSON
)

func startListener(t *testing.T, b lab.Behaviour) *lab.Listener {
	t.Helper()
	l, err := lab.Listen(b)
	if err != nil {
		t.Fatalf("lab.Listen() error = %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func iface(url string, b a2a.TransportProtocol, v string) card.Interface {
	return card.Interface{URL: url, Binding: b, ProtocolVersion: v, Source: card.Supported(0)}
}

// verdict is the part of a Result a test checks exactly.
type verdict struct {
	Outcome       wire.Outcome
	ActualBinding a2a.TransportProtocol
	ActualVersion string
}

func verdictOf(r probe.Result) verdict {
	return verdict{Outcome: r.Outcome, ActualBinding: r.ActualBinding, ActualVersion: r.ActualVersion}
}

// TestInterface_Outcomes probes real loopback servers for every outcome of the taxonomy.
func TestInterface_Outcomes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()

	healthy := labtest.Start(t, lab.Healthy()...)
	v03 := labtest.Start(t, lab.HealthyV03()...)
	union := labtest.Start(t, lab.Union()...)
	noService := labtest.Start(t, lab.WithGRPC(lab.GRPCNoService))
	auth := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
		lab.WithGRPC(lab.GRPCV1), lab.WithAuth("s3cret"))
	tlsAgent := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
		lab.WithGRPC(lab.GRPCV1), lab.WithTLS())
	rootJSONRPC := labtest.Start(t, lab.WithJSONRPC(card.V1, "/"))
	silent := startListener(t, lab.Silent)
	garbage := startListener(t, lab.Garbage)
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	plainAsHTTPS := "https://" + healthy.HTTPAddr + lab.PathJSONRPC
	tlsAsHTTP := "http://" + tlsAgent.HTTPAddr + lab.PathJSONRPC

	tests := []struct {
		name       string
		iface      card.Interface
		opts       []probe.Option
		want       verdict
		wantDetail []string
	}{
		// served, every binding and version
		{name: "healthy JSON-RPC 1.0", iface: iface(healthy.URL(lab.PathJSONRPC), jsonrpc, card.V1),
			want: verdict{wire.Served, jsonrpc, card.V1}, wantDetail: []string{"-32001"}},
		{name: "healthy gRPC 1.0 bare host:port", iface: iface(healthy.GRPCAddr, grpc, card.V1),
			want: verdict{wire.Served, grpc, card.V1}, wantDetail: []string{"NotFound", "plaintext (h2c) answered"}},
		{name: "healthy HTTP+JSON 1.0", iface: iface(healthy.URL(lab.PathREST), httpjson, card.V1),
			want: verdict{wire.Served, httpjson, card.V1}, wantDetail: []string{"HTTP 404", "TASK_NOT_FOUND"}},
		{name: "v0.3 JSON-RPC", iface: iface(v03.URL(lab.PathJSONRPCV03), jsonrpc, card.V03),
			want: verdict{wire.Served, jsonrpc, card.V03}, wantDetail: []string{"tasks/get"}},
		{name: "v0.3 gRPC", iface: iface(v03.GRPCAddr, grpc, card.V03),
			want: verdict{wire.Served, grpc, card.V03}, wantDetail: []string{"/a2a.v1.A2AService/GetTask"}},
		{name: "v0.3 HTTP+JSON", iface: iface(v03.URL(lab.PathRESTV03), httpjson, card.V03),
			want: verdict{wire.Served, httpjson, card.V03}},
		{name: "union gRPC 1.0", iface: iface(union.GRPCAddr, grpc, card.V1), want: verdict{wire.Served, grpc, card.V1}},
		{name: "union gRPC 0.3", iface: iface(union.GRPCAddr, grpc, card.V03), want: verdict{wire.Served, grpc, card.V03}},
		{name: "gRPC dns:/// target", iface: iface("dns:///"+healthy.GRPCAddr, grpc, card.V1), want: verdict{wire.Served, grpc, card.V1}},
		{name: "gRPC URL with http scheme", iface: iface("http://"+healthy.GRPCAddr, grpc, card.V1),
			want: verdict{wire.Served, grpc, card.V1}, wantDetail: []string{"Go clients (grpc.NewClient) reject it"}},

		// handler_missing
		{name: "gRPC with no A2A service", iface: iface(noService.GRPCAddr, grpc, card.V1),
			want: verdict{wire.HandlerMissing, grpc, ""}, wantDetail: []string{"unknown service lf.a2a.v1.A2AService", "a2a.v1.A2AService"}},

		// version_mismatch
		{name: "gRPC v0.3 only, 1.0 declared", iface: iface(v03.GRPCAddr, grpc, card.V1),
			want: verdict{wire.VersionMismatch, grpc, card.V03}, wantDetail: []string{"Unimplemented", "NotFound"}},
		{name: "JSON-RPC v0.3 only, 1.0 declared", iface: iface(v03.URL(lab.PathJSONRPCV03), jsonrpc, card.V1),
			want: verdict{wire.VersionMismatch, jsonrpc, card.V03}, wantDetail: []string{"-32601", "-32001"}},
		{name: "JSON-RPC v1.0 only, 0.3 declared", iface: iface(healthy.URL(lab.PathJSONRPC), jsonrpc, card.V03),
			want: verdict{wire.VersionMismatch, jsonrpc, card.V1}},
		{name: "gRPC v1.0 only, 0.3 declared", iface: iface(healthy.GRPCAddr, grpc, card.V03),
			want: verdict{wire.VersionMismatch, grpc, card.V1}},
		{name: "HTTP+JSON v1.0 only, 0.3 declared", iface: iface(healthy.URL(lab.PathREST), httpjson, card.V03),
			want: verdict{wire.VersionMismatch, httpjson, card.V1}, wantDetail: []string{"1.0-shaped"}},
		{name: "union HTTP+JSON 0.3", iface: iface(union.URL(lab.PathRESTV03), httpjson, card.V03), want: verdict{wire.Served, httpjson, card.V03}},
		{name: "union JSON-RPC 0.3", iface: iface(union.URL(lab.PathJSONRPCV03), jsonrpc, card.V03), want: verdict{wire.Served, jsonrpc, card.V03}},
		{name: "no protocolVersion declared, 0.3 served", iface: iface(v03.URL(lab.PathJSONRPCV03), jsonrpc, ""),
			want: verdict{wire.Served, jsonrpc, card.V03}},
		{name: "HTTP+JSON v0.3 only, 1.0 declared", iface: iface(v03.URL(lab.PathRESTV03), httpjson, card.V1),
			want: verdict{wire.VersionMismatch, httpjson, card.V03}, wantDetail: []string{"problem+json"}},

		// wrong_binding
		{name: "HTTP+JSON declared at a JSON-RPC URL", iface: iface(healthy.URL(lab.PathJSONRPC), httpjson, card.V1),
			want: verdict{wire.WrongBinding, jsonrpc, card.V1}},
		{name: "gRPC declared at the HTTP port", iface: iface(rootJSONRPC.HTTPAddr, grpc, card.V1),
			want: verdict{wire.WrongBinding, jsonrpc, card.V1}, wantDetail: []string{"HTTP/1.1"}},
		{name: "gRPC declared at the HTTP port with nothing at /", iface: iface(healthy.HTTPAddr, grpc, card.V1),
			want: verdict{wire.WrongBinding, "", ""}, wantDetail: []string{"HTTP/1.1"}},
		{name: "gRPC declared at an https URL serving JSON-RPC", iface: iface(tlsAgent.BaseURL, grpc, card.V1),
			opts: []probe.Option{probe.WithConn(addr.Conn{RootCAs: tlsAgent.CertPool})}, want: verdict{wire.WrongBinding, "", ""}},
		{name: "JSON-RPC declared at the gRPC port", iface: iface("http://"+healthy.GRPCAddr, jsonrpc, card.V1),
			want: verdict{wire.WrongBinding, grpc, card.V1}},
		{name: "JSON-RPC declared at the HTTP+JSON URL", iface: iface(healthy.URL(lab.PathREST), jsonrpc, card.V1),
			want: verdict{wire.WrongBinding, httpjson, card.V1}},

		// not_found
		{name: "nothing mounted at the path", iface: iface(healthy.URL("/nothing-here"), jsonrpc, card.V1),
			want: verdict{wire.NotFound, "", ""}, wantDetail: []string{"HTTP 404"}},

		// auth_required
		{name: "JSON-RPC behind 401", iface: iface(auth.URL(lab.PathJSONRPC), jsonrpc, card.V1),
			want: verdict{wire.AuthRequired, "", ""}, wantDetail: []string{"HTTP 401", `WWW-Authenticate: Bearer realm="a2abind-lab"`}},
		{name: "HTTP+JSON behind 401", iface: iface(auth.URL(lab.PathREST), httpjson, card.V1),
			want: verdict{wire.AuthRequired, "", ""}, wantDetail: []string{"WWW-Authenticate"}},
		{name: "gRPC UNAUTHENTICATED", iface: iface(auth.GRPCAddr, grpc, card.V1),
			want: verdict{wire.AuthRequired, grpc, ""}, wantDetail: []string{"Unauthenticated"}},
		{name: "JSON-RPC with credentials", iface: iface(auth.URL(lab.PathJSONRPC), jsonrpc, card.V1),
			opts: []probe.Option{probe.WithConn(addr.Conn{Header: http.Header{"Authorization": {"Bearer s3cret"}}})}, want: verdict{wire.Served, jsonrpc, card.V1}},
		{name: "gRPC with credentials", iface: iface(auth.GRPCAddr, grpc, card.V1),
			opts: []probe.Option{probe.WithConn(addr.Conn{Header: http.Header{"Authorization": {"Bearer s3cret"}}})}, want: verdict{wire.Served, grpc, card.V1}},

		// tls_mismatch
		{name: "https declared, plaintext served", iface: iface(plainAsHTTPS, jsonrpc, card.V1),
			want: verdict{wire.TLSMismatch, jsonrpc, card.V1}, wantDetail: []string{"plaintext"}},
		{name: "http declared, TLS served", iface: iface(tlsAsHTTP, jsonrpc, card.V1), opts: []probe.Option{probe.WithConn(addr.Conn{RootCAs: tlsAgent.CertPool})},
			want: verdict{wire.TLSMismatch, jsonrpc, card.V1}, wantDetail: []string{"HTTP 400"}},
		{name: "self-signed certificate", iface: iface(tlsAgent.URL(lab.PathJSONRPC), jsonrpc, card.V1),
			want: verdict{wire.TLSMismatch, jsonrpc, card.V1}, wantDetail: []string{"certificate", "--insecure"}},
		{name: "self-signed certificate, gRPC", iface: iface("https://"+tlsAgent.GRPCAddr, grpc, card.V1),
			want: verdict{wire.TLSMismatch, grpc, card.V1}, wantDetail: []string{"certificate"}},
		{name: "self-signed certificate, --insecure", iface: iface(tlsAgent.URL(lab.PathJSONRPC), jsonrpc, card.V1),
			opts: []probe.Option{probe.WithConn(addr.Conn{Insecure: true})}, want: verdict{wire.Served, jsonrpc, card.V1}},
		{name: "self-signed certificate, trusted root", iface: iface(tlsAgent.URL(lab.PathREST), httpjson, card.V1),
			opts: []probe.Option{probe.WithConn(addr.Conn{RootCAs: tlsAgent.CertPool})}, want: verdict{wire.Served, httpjson, card.V1}},
		{name: "TLS gRPC at a bare host:port", iface: iface(tlsAgent.GRPCAddr, grpc, card.V1),
			opts: []probe.Option{probe.WithConn(addr.Conn{RootCAs: tlsAgent.CertPool})}, want: verdict{wire.Served, grpc, card.V1},
			wantDetail: []string{"TLS answered; plaintext did not"}},
		{name: "TLS gRPC declared grpc://", iface: iface("grpc://"+tlsAgent.GRPCAddr, grpc, card.V1),
			opts: []probe.Option{probe.WithConn(addr.Conn{RootCAs: tlsAgent.CertPool})}, want: verdict{wire.TLSMismatch, grpc, card.V1}},
		{name: "plaintext gRPC declared grpcs", iface: iface("grpcs://"+healthy.GRPCAddr, grpc, card.V1),
			want: verdict{wire.TLSMismatch, grpc, card.V1}},

		// refused
		{name: "closed port, JSON-RPC", iface: iface("http://"+closed+"/a2a", jsonrpc, card.V1), want: verdict{wire.Refused, "", ""}},
		{name: "closed port, gRPC", iface: iface(closed, grpc, card.V1), want: verdict{wire.Refused, "", ""}},
		{name: "closed port, HTTP+JSON", iface: iface("http://"+closed, httpjson, card.V1), want: verdict{wire.Refused, "", ""}},

		// timeout
		{name: "silent listener, JSON-RPC", iface: iface("http://"+silent.Addr, jsonrpc, card.V1),
			opts: []probe.Option{probe.WithTimeout(300 * time.Millisecond)}, want: verdict{wire.Timeout, "", ""}},
		{name: "silent listener, gRPC", iface: iface(silent.Addr, grpc, card.V1),
			opts: []probe.Option{probe.WithTimeout(300 * time.Millisecond)}, want: verdict{wire.Timeout, "", ""}},

		// malformed
		{name: "garbage listener, JSON-RPC", iface: iface("http://"+garbage.Addr, jsonrpc, card.V1), want: verdict{wire.Malformed, "", ""}},
		{name: "garbage listener, gRPC", iface: iface(garbage.Addr, grpc, card.V1), want: verdict{wire.Malformed, "", ""}},
		{name: "garbage listener, HTTP+JSON", iface: iface("http://"+garbage.Addr, httpjson, card.V1), want: verdict{wire.Malformed, "", ""}},

		// unreachable
		{name: "not a URL", iface: iface("not a url", jsonrpc, card.V1), want: verdict{wire.Unreachable, "", ""}},
		{name: "unknown scheme", iface: iface("ftp://127.0.0.1:21/", jsonrpc, card.V1), want: verdict{wire.Unreachable, "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := append([]probe.Option{probe.WithTimeout(5 * time.Second)}, tt.opts...)
			got := probe.Interface(ctx, tt.iface, opts...)
			t.Logf("%s: %s", got.Outcome, got.Detail)
			if diff := cmp.Diff(tt.want, verdictOf(got)); diff != "" {
				t.Errorf("Interface(%v) verdict mismatch (-want +got):\n%s\ndetail: %s", tt.iface, diff, got.Detail)
			}
			for _, w := range tt.wantDetail {
				if !strings.Contains(got.Detail, w) {
					t.Errorf("Interface(%v).Detail = %q, want it to contain %q", tt.iface, got.Detail, w)
				}
			}
			if got.Interface != tt.iface {
				t.Errorf("Interface(%v).Interface = %v, want the declared interface", tt.iface, got.Interface)
			}
		})
	}
}

// TestInterface_DNSFailure checks that a host name that does not resolve is unreachable,
// on every binding. The names are .onion names (RFC 7686), which Go's own resolver
// (forced by the go:debug line at the top of this file) refuses without sending a DNS
// query, so the test needs no network and cannot be answered by a local resolver.
func TestInterface_DNSFailure(t *testing.T) {
	t.Parallel()
	for _, i := range []card.Interface{
		iface("http://a2abind-probe-test.onion/a2a", jsonrpc, card.V1),
		iface("a2abind-probe-test.onion:443", grpc, card.V1),
		iface("https://a2abind-probe-test.onion/rest", httpjson, card.V1),
	} {
		r := probe.Interface(t.Context(), i, probe.WithTimeout(3*time.Second))
		if r.Outcome != wire.Unreachable {
			t.Errorf("Interface(%v) = %s (%s), want unreachable", i, r.Outcome, r.Detail)
		}
	}
}
