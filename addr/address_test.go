package addr_test

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/addr"
)

const (
	grpcB = a2a.TransportProtocolGRPC
	rpcB  = a2a.TransportProtocolJSONRPC
	restB = a2a.TransportProtocolHTTPJSON
)

// AddressCases is the one table of interface address forms: every user (lint, probe,
// server, delegate) reads addresses through ParseAddress, so this is the meaning each
// form has everywhere.
var addressCases = []struct {
	raw     string
	binding a2a.TransportProtocol
	want    addr.Address // Raw is filled in by the test
	key     string
	origin  string // Origin(true) (TLS when the address does not say)
	wantErr string // a fragment of the error
}{
	// gRPC, A2A v1.0.1: hostname:port.
	{raw: "agent.example.com:443", binding: grpcB, want: addr.Address{Host: "agent.example.com", Port: "443", GRPC: true},
		key: "agent.example.com:443", origin: "https://agent.example.com:443"},
	{raw: "127.0.0.1:9443", binding: "grpc", want: addr.Address{Host: "127.0.0.1", Port: "9443", GRPC: true},
		key: "127.0.0.1:9443", origin: "https://127.0.0.1:9443"},
	{raw: "[::1]:50051", binding: grpcB, want: addr.Address{Host: "::1", Port: "50051", GRPC: true},
		key: "[::1]:50051", origin: "https://[::1]:50051"},
	{raw: "Agent.Example:443/", binding: grpcB, want: addr.Address{Host: "agent.example", Port: "443", GRPC: true},
		key: "agent.example:443", origin: "https://agent.example:443"},
	{raw: "agent.example.com", binding: grpcB, wantErr: "names no port"},
	{raw: "agent:0", binding: grpcB, wantErr: "not a number from 1 to 65535"},
	{raw: "agent:99999", binding: grpcB, wantErr: "not a number from 1 to 65535"},
	{raw: ":443", binding: grpcB, wantErr: "neither host:port"},
	{raw: "[fe80::1%eth0]:443", binding: grpcB, wantErr: "IPv6 zone"},
	{raw: "http://[fe80::1%25eth0]:80/", binding: rpcB, wantErr: "IPv6 zone"},
	{raw: "grpcs://[::1%25lo]:443", binding: grpcB, wantErr: "IPv6 zone"},
	// gRPC with a scheme: grpc:// and http:// plaintext, grpcs:// and https:// TLS; the
	// scheme's default port when none is written (grpc://agent is agent:80).
	{raw: "grpc://agent", binding: grpcB, want: addr.Address{Scheme: "grpc", Host: "agent", Port: "80", TLS: addr.TLSNo, GRPC: true},
		key: "agent:80", origin: "http://agent:80"},
	{raw: "grpcs://agent.example.com:8443", binding: grpcB, want: addr.Address{Scheme: "grpcs", Host: "agent.example.com", Port: "8443", TLS: addr.TLSYes, GRPC: true},
		key: "agent.example.com:8443", origin: "https://agent.example.com:8443"},
	{raw: "grpcs://agent", binding: grpcB, want: addr.Address{Scheme: "grpcs", Host: "agent", Port: "443", TLS: addr.TLSYes, GRPC: true},
		key: "agent:443", origin: "https://agent:443"},
	{raw: "http://127.0.0.1:9443", binding: grpcB, want: addr.Address{Scheme: "http", Host: "127.0.0.1", Port: "9443", TLS: addr.TLSNo, GRPC: true},
		key: "127.0.0.1:9443", origin: "http://127.0.0.1:9443"},
	{raw: "https://agent.internal:9443/a2a", binding: grpcB, want: addr.Address{Scheme: "https", Host: "agent.internal", Port: "9443", TLS: addr.TLSYes, GRPC: true},
		key: "agent.internal:9443", origin: "https://agent.internal:9443"},
	{raw: "HTTPS://agent.internal", binding: grpcB, want: addr.Address{Scheme: "https", Host: "agent.internal", Port: "443", TLS: addr.TLSYes, GRPC: true},
		key: "agent.internal:443", origin: "https://agent.internal:443"},
	// grpc-go resolver targets: the endpoint after the empty authority.
	{raw: "dns:///agent.example.com:443", binding: grpcB, want: addr.Address{Scheme: "dns", Host: "agent.example.com", Port: "443", GRPC: true},
		key: "agent.example.com:443", origin: "https://agent.example.com:443"},
	{raw: "passthrough:///10.0.0.5:50051", binding: grpcB, want: addr.Address{Scheme: "passthrough", Host: "10.0.0.5", Port: "50051", GRPC: true},
		key: "10.0.0.5:50051", origin: "https://10.0.0.5:50051"},
	{raw: "dns://8.8.8.8/agent:443", binding: grpcB, wantErr: `scheme "dns"`},
	{raw: "xds:///svc", binding: grpcB, wantErr: `scheme "xds"`},
	// Local sockets and files parse, so the dial policy can refuse them by name.
	{raw: "unix:///var/run/agent.sock", binding: grpcB, want: addr.Address{Scheme: "unix", Path: "var/run/agent.sock", GRPC: true},
		key: "unix:var/run/agent.sock"},
	{raw: "file:///etc/passwd", binding: rpcB, want: addr.Address{Scheme: "file", Path: "etc/passwd"}, key: "file:etc/passwd"},
	// HTTP bindings: an absolute http(s) URL, nothing else.
	{raw: "https://agent.example.com/a2a/jsonrpc/", binding: rpcB,
		want: addr.Address{Scheme: "https", Host: "agent.example.com", Port: "443", Path: "/a2a/jsonrpc", TLS: addr.TLSYes},
		key:  "agent.example.com:443/a2a/jsonrpc", origin: "https://agent.example.com:443"},
	{raw: "http://127.0.0.1:8080/a2a/rest?x=1", binding: restB,
		want: addr.Address{Scheme: "http", Host: "127.0.0.1", Port: "8080", Path: "/a2a/rest", Query: "x=1", TLS: addr.TLSNo},
		key:  "127.0.0.1:8080/a2a/rest", origin: "http://127.0.0.1:8080"},
	{raw: "  http://h  ", binding: rpcB, want: addr.Address{Scheme: "http", Host: "h", Port: "80", TLS: addr.TLSNo},
		key: "h:80", origin: "http://h:80"},
	{raw: "https://user:pw@h/a2a", binding: rpcB, want: addr.Address{Scheme: "https", Host: "h", Port: "443", Path: "/a2a", TLS: addr.TLSYes, UserInfo: true},
		key: "h:443/a2a", origin: "https://h:443"},
	{raw: "127.0.0.1:8080", binding: rpcB, wantErr: "not an absolute http(s) URL"},
	{raw: "grpc://h:1/a2a", binding: rpcB, wantErr: "not an http(s) URL"},
	{raw: "ftp://h:1", binding: restB, wantErr: "not an http(s) URL"},
	{raw: "http://:80/x", binding: rpcB, wantErr: "no host"},
	{raw: "http://[::1", binding: rpcB, wantErr: "not a valid URL"},
	{raw: "http://h:99999", binding: rpcB, wantErr: "not a number"},
	{raw: "http://h\x1b[31m/x", binding: rpcB, wantErr: "control characters"},
	{raw: "", binding: rpcB, wantErr: "empty"},
	// Custom bindings: http(s) as above, or any absolute URL with a host.
	{raw: "wss://agent.example.com/ws", binding: "https://example.com/bindings/ws",
		want: addr.Address{Scheme: "wss", Host: "agent.example.com", Path: "/ws"}, key: "/ws"},
	{raw: "https://h/x", binding: "urn:custom", want: addr.Address{Scheme: "https", Host: "h", Port: "443", Path: "/x", TLS: addr.TLSYes},
		key: "h:443/x", origin: "https://h:443"},
}

func TestParseAddress(t *testing.T) {
	for _, tt := range addressCases {
		t.Run(string(tt.binding)+" "+tt.raw, func(t *testing.T) {
			got, err := addr.ParseAddress(tt.raw, tt.binding)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, addr.ErrAddress) {
					t.Fatalf("ParseAddress(%q, %s) = %+v, %v; want an ErrAddress containing %q", tt.raw, tt.binding, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseAddress(%q, %s): %v", tt.raw, tt.binding, err)
			}
			want := tt.want
			want.Raw = tt.raw
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ParseAddress(%q, %s) (-want +got):\n%s", tt.raw, tt.binding, diff)
			}
			if k := got.Key(); k != tt.key {
				t.Errorf("Key() = %q, want %q", k, tt.key)
			}
			if o := got.Origin(true).String(); o != tt.origin {
				t.Errorf("Origin(true) = %q, want %q", o, tt.origin)
			}
		})
	}
}

// A bare gRPC host:port takes the origin of the connection a2abind opens: the https
// origin over TLS, the http one in plaintext. An address with a scheme ignores it.
func TestOriginOfBareGRPC(t *testing.T) {
	bare, _ := addr.ParseAddress("h:443", grpcB)
	if got := bare.Origin(true); got != addr.OriginOf("https://h") {
		t.Errorf("h:443 over TLS: %v, want the origin of https://h", got)
	}
	if got := bare.Origin(false); got == addr.OriginOf("https://h") || got != addr.OriginOf("http://h:443") {
		t.Errorf("h:443 in plaintext: %v, want http://h:443", got)
	}
	plain, _ := addr.ParseAddress("http://h:443/", rpcB)
	if plain.Origin(true) == addr.OriginOf("https://h:443") {
		t.Error("http://h:443 has the origin of https://h:443: the scheme must count")
	}
	grpcs, _ := addr.ParseAddress("grpcs://h", grpcB)
	if grpcs.Origin(false) != addr.OriginOf("https://h:443") {
		t.Error("grpcs://h and https://h are not one origin")
	}
}

// FuzzParseAddress: whatever the input, ParseAddress returns an *AddressError or an
// address whose parts are consistent: a dialable host:port and HTTP URLs that parse.
func FuzzParseAddress(f *testing.F) {
	for _, tt := range addressCases {
		f.Add(tt.raw, string(tt.binding))
	}
	f.Fuzz(func(t *testing.T, raw, binding string) {
		a, err := addr.ParseAddress(raw, a2a.TransportProtocol(binding))
		if err != nil {
			if !errors.Is(err, addr.ErrAddress) {
				t.Fatalf("ParseAddress(%q, %q) error %v is not an ErrAddress", raw, binding, err)
			}
			return
		}
		if a.Local() || a.Port == "" {
			return
		}
		host, port, err := net.SplitHostPort(a.HostPort())
		if err != nil || host != a.Host || port != a.Port || host == "" {
			t.Fatalf("ParseAddress(%q).HostPort() = %q: not host:port (%v)", raw, a.HostPort(), err)
		}
		if strings.ContainsFunc(a.HostPort()+a.Path+a.Query, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("ParseAddress(%q) kept a control character: %+v", raw, a)
		}
		for _, tls := range []bool{true, false} {
			u, err := url.Parse(a.HTTPURL(tls))
			if err != nil || u.Hostname() != a.Host || u.Port() != a.Port {
				t.Fatalf("ParseAddress(%q).HTTPURL(%v) = %q does not parse back (%v)", raw, tls, a.HTTPURL(tls), err)
			}
		}
		if o := a.Origin(false); o.Host != a.Host || o.Port != a.Port {
			t.Fatalf("Origin() = %+v for %+v", o, a)
		}
	})
}
