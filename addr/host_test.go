package addr_test

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
)

func mustAddr(t *testing.T, raw string, b a2a.TransportProtocol) addr.Address {
	t.Helper()
	a, err := addr.ParseAddress(raw, b)
	if err != nil {
		t.Fatalf("ParseAddress(%q): %v", raw, err)
	}
	return a
}

// TestAddressHostPredicates: loopback, wildcard and same-host are answered by the
// address model alone, for names and IP literals in every spelling.
func TestAddressHostPredicates(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		raw                string
		loopback, wildcard bool
	}{
		{"localhost:80", true, false},
		{"LOCALHOST:80", true, false},
		{"api.localhost:80", true, false},
		{"127.0.0.1:80", true, false},
		{"127.8.9.10:80", true, false},
		{"[::1]:80", true, false},
		{"[::ffff:127.0.0.1]:80", true, false},
		{"0.0.0.0:80", false, true},
		{"[::]:80", false, true},
		{"10.0.0.1:80", false, false},
		{"localhost.example.com:80", false, false},
		{"agent.example.com:443", false, false},
	} {
		a := mustAddr(t, tt.raw, a2a.TransportProtocolGRPC)
		if a.Loopback() != tt.loopback || a.Wildcard() != tt.wildcard {
			t.Errorf("%s: Loopback %v Wildcard %v, want %v %v", tt.raw, a.Loopback(), a.Wildcard(), tt.loopback, tt.wildcard)
		}
	}
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"Agent.Example.com:1", "agent.example.com.:2", true},
		{"127.0.0.1:1", "[::ffff:127.0.0.1]:1", true},
		{"localhost:1", "127.0.0.1:1", true},
		{"[::1]:1", "localhost:1", true},
		{"127.0.0.1:1", "127.0.0.2:1", false},
		{"localhost:1", "10.0.0.1:1", false},
		{"a.example.com:1", "b.example.com:1", false},
		{"[2001:db8::1]:1", "[2001:DB8:0::1]:1", true},
	} {
		a, b := mustAddr(t, tt.a, a2a.TransportProtocolGRPC), mustAddr(t, tt.b, a2a.TransportProtocolGRPC)
		if a.SameHost(b) != tt.same || b.SameHost(a) != tt.same {
			t.Errorf("SameHost(%s, %s) = %v, want %v", tt.a, tt.b, a.SameHost(b), tt.same)
		}
	}
	if (addr.Address{}).SameHost(addr.Address{}) {
		t.Error("two addresses without a host are the same host")
	}
}

// TestAddressRewrite: host:port (and the scheme when asked) are replaced; the path,
// query and fragment stay byte for byte.
func TestAddressRewrite(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		raw              string
		b                a2a.TransportProtocol
		scheme, hostport string
		want             string
	}{
		{"https://agent.example.com/a2a/?x=1#f", a2a.TransportProtocolJSONRPC, "http", "127.0.0.1:8080", "http://127.0.0.1:8080/a2a/?x=1#f"},
		{"https://agent.example.com:443", a2a.TransportProtocolJSONRPC, "", "127.0.0.1:9", "https://127.0.0.1:9"},
		{"HTTP://Agent?q", a2a.TransportProtocolJSONRPC, "", "[::1]:9", "HTTP://[::1]:9?q"},
		{"agent.example.com:443", a2a.TransportProtocolGRPC, "", "127.0.0.1:9090", "127.0.0.1:9090"},
		{"dns:///agent.example.com:443", a2a.TransportProtocolGRPC, "", "127.0.0.1:9090", "dns:///127.0.0.1:9090"},
		{"grpcs://agent.example.com/x", a2a.TransportProtocolGRPC, "grpc", "127.0.0.1:9090", "grpc://127.0.0.1:9090/x"},
		{"unix:///run/a.sock", a2a.TransportProtocolGRPC, "http", "127.0.0.1:1", "unix:///run/a.sock"},
	} {
		if got := mustAddr(t, tt.raw, tt.b).Rewrite(tt.scheme, tt.hostport); got != tt.want {
			t.Errorf("Rewrite(%q, %q) of %q = %q, want %q", tt.scheme, tt.hostport, tt.raw, got, tt.want)
		}
	}
}

// TestParseDeclared: a URL that is not an address of its binding but names a socket
// yields that socket and the binding's error; one naming nothing yields neither.
func TestParseDeclared(t *testing.T) {
	t.Parallel()
	a, err := addr.ParseDeclared("agent:8080", a2a.TransportProtocolJSONRPC)
	if err == nil || a.HostPort() != "agent:8080" {
		t.Errorf("ParseDeclared(agent:8080, JSONRPC) = %q, %v; want the socket and an error", a.HostPort(), err)
	}
	a, err = addr.ParseDeclared("https://agent/x", a2a.TransportProtocolJSONRPC)
	if err != nil || a.Path != "/x" {
		t.Errorf("ParseDeclared(https://agent/x) = %+v, %v", a, err)
	}
	a, err = addr.ParseDeclared("not a url", a2a.TransportProtocolJSONRPC)
	if err == nil || a.Host != "" {
		t.Errorf("ParseDeclared(not a url) = %+v, %v; want no socket and an error", a, err)
	}
}

// TestParseKeyURL: one https rule for jku and JWKS URLs.
func TestParseKeyURL(t *testing.T) {
	t.Parallel()
	for raw, ok := range map[string]bool{
		"https://keys.example.com/.well-known/jwks.json": true,
		"HTTPS://keys.example.com:8443/jwks":             true,
		"http://keys.example.com/jwks":                   false,
		"https://user:pw@keys.example.com/jwks":          false,
		"/jwks.json":                                     false,
		"keys.example.com:443":                           false,
		"":                                               false,
	} {
		if _, err := addr.ParseKeyURL(raw); (err == nil) != ok {
			t.Errorf("ParseKeyURL(%q) error %v, want ok %v", raw, err, ok)
		}
	}
}
