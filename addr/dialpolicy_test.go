package addr_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
)

func TestDialPolicyCheck(t *testing.T) {
	allow, err := addr.NewDialPolicy("169.254.10.0/24", "metadata.google.internal", "[fe80::1]")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		raw     string
		binding string
		refused bool
		allowed bool // still refused with the allow list?
	}{
		{"http://127.0.0.1:8080/a2a", "JSONRPC", false, false},
		{"http://localhost/a2a", "JSONRPC", false, false},
		{"10.0.0.5:50051", "GRPC", false, false},
		{"https://192.168.1.10/a2a", "JSONRPC", false, false},
		{"http://[::1]:8080/a2a", "JSONRPC", false, false},
		{"http://169.254.169.254/latest/meta-data/", "JSONRPC", true, true},
		{"http://169.254.10.7/", "JSONRPC", true, false},
		{"http://[::ffff:169.254.169.254]/", "JSONRPC", true, true},
		{"[fe80::1]:443", "GRPC", true, false},
		{"[fe80::2]:443", "GRPC", true, true},
		{"http://0.0.0.0:8080/", "JSONRPC", true, true},
		{"[::]:50051", "GRPC", true, true},
		{"239.1.2.3:50051", "GRPC", true, true},
		{"http://[ff02::1]/", "JSONRPC", true, true},
		{"metadata.google.internal:80", "GRPC", true, false},
		{"http://METADATA.google.internal./x", "JSONRPC", true, false},
		{"http://metadata/computeMetadata/v1/", "JSONRPC", true, true},
		{"http://100.100.100.200/latest/meta-data", "JSONRPC", true, true},
		{"unix:///var/run/agent.sock", "GRPC", true, true},
		{"file:///etc/passwd", "JSONRPC", true, true},
		{"https://user:pw@agent.example.com/a2a", "JSONRPC", true, true},
	}
	for _, tt := range tests {
		a, err := addr.ParseAddress(tt.raw, a2a.TransportProtocol(tt.binding))
		if err != nil {
			t.Fatalf("ParseAddress(%q): %v", tt.raw, err)
		}
		err = (*addr.DialPolicy)(nil).Check(a)
		if (err != nil) != tt.refused || (err != nil && !errors.Is(err, addr.ErrRefusedAddress)) {
			t.Errorf("default policy: Check(%q) = %v, refused want %v", tt.raw, err, tt.refused)
		}
		// CheckDial asks Check, then what the names resolve to (only localhost, from the
		// hosts file, gets that far here).
		if err := (*addr.DialPolicy)(nil).CheckDial(context.Background(), a); (err != nil) != tt.refused {
			t.Errorf("default policy: CheckDial(%q) = %v, refused want %v", tt.raw, err, tt.refused)
		}
		if err := allow.Check(a); (err != nil) != tt.allowed {
			t.Errorf("with allow list: Check(%q) = %v, refused want %v", tt.raw, err, tt.allowed)
		}
	}
}

func TestNewDialPolicyRejectsBadEntries(t *testing.T) {
	for _, e := range []string{"http://h/", "h:80", "a b", "10.0.0.0/99"} {
		if _, err := addr.NewDialPolicy(e); err == nil {
			t.Errorf("NewDialPolicy(%q) accepted it", e)
		}
	}
}

// The dial-time check: a real dial to 0.0.0.0 (which Linux connects to a loopback
// listener) fails in Control before any byte is sent; the listener accepts nothing.
func TestDialPolicyControlAtConnectTime(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := lis.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(lis.Addr().String())
	var p *addr.DialPolicy
	if c, err := p.Dialer().DialContext(t.Context(), "tcp", net.JoinHostPort("0.0.0.0", port)); err == nil || !errors.Is(err, addr.ErrRefusedAddress) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("dial 0.0.0.0:%s = %v, want a refusal", port, err)
	}
	c, err := p.Dialer().DialContext(t.Context(), "tcp", lis.Addr().String())
	if err != nil {
		t.Fatalf("dial loopback: %v", err)
	}
	c.Close()
	<-accepted // the one accepted connection is the loopback dial
	if err := p.CheckIP(netip.MustParseAddr("::ffff:169.254.169.254")); err == nil || !strings.Contains(err.Error(), "metadata") && !strings.Contains(err.Error(), "link-local") {
		t.Errorf("CheckIP(IPv4-mapped 169.254.169.254) = %v", err)
	}
}

func TestCredentialPolicy(t *testing.T) {
	p := addr.NewCredentialPolicy(addr.OriginOf("https://agent.example/.well-known/agent-card.json"), "trusted.example", "other.example:8443")
	tests := []struct {
		raw     string
		grpc    bool
		useTLS  bool
		allowed bool
	}{
		{"https://agent.example/a2a", false, true, true},
		{"https://agent.example:443/a2a", false, true, true},
		{"http://agent.example:443/a2a", false, false, false},
		{"https://agent.example:8443/a2a", false, true, false},
		{"https://evil.example/a2a", false, true, false},
		{"https://trusted.example:1/a2a", false, true, true},
		{"http://trusted.example/a2a", false, false, true},
		{"https://other.example:8443/", false, true, true},
		{"https://other.example:8444/", false, true, false},
		{"agent.example:443", true, true, true},
		{"agent.example:443", true, false, false},
		{"grpcs://agent.example", true, true, true},
		{"grpc://agent.example:443", true, false, false},
		{"https://agent.example/a2a", false, false, false}, // an https address retried in plaintext
		{"https://user:pw@agent.example/", false, true, false},
	}
	for _, tt := range tests {
		b := rpcB
		if tt.grpc {
			b = grpcB
		}
		a, err := addr.ParseAddress(tt.raw, b)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Allows(a, tt.useTLS); got != tt.allowed {
			t.Errorf("Allows(%s, tls %v) = %v, want %v", tt.raw, tt.useTLS, got, tt.allowed)
		}
	}
	if (addr.CredentialPolicy{}).AllowsURL("https://agent.example/") {
		t.Error("the zero policy allows a URL")
	}
}

// TestDialPolicyEmbeddedIPv4 (issue 43): an IPv6 address that carries an IPv4 address
// is judged by it. IPv4-mapped is the IPv4 address itself (the kernel dials it);
// translated forms (NAT64, SIIT, IPv4-compatible, 6to4, Teredo's server and client)
// must carry a public IPv4 address, whatever the policy; local-use NAT64 is refused
// whole. Metadata and platform addresses outside link-local are refused, and the
// PublicOnly policy (push webhooks) refuses loopback and private addresses besides.
func TestDialPolicyEmbeddedIPv4(t *testing.T) {
	const ok, refused = "", "refused"
	tests := []struct {
		ip              string
		dflt, public    string // "" allowed, else a word of the refusal
		allowedByPrefix bool   // allowed with --allow-address 64:ff9b::/96
	}{
		{"8.8.8.8", ok, ok, false},
		{"2606:4700::1111", ok, ok, false},
		{"127.0.0.1", ok, "loopback", false},
		{"::1", ok, "loopback", false},
		{"10.1.2.3", ok, "private", false},
		{"fd12:3456::1", ok, "private", false},
		{"100.64.0.1", ok, "shared", false},
		{"192.0.2.1", ok, ok, false},
		// cloud metadata and platform services
		{"169.254.169.254", "link-local", "link-local", false},
		{"169.254.170.2", "link-local", "link-local", false},
		{"168.63.129.16", "metadata", "metadata", false},
		{"100.100.100.200", "metadata", "metadata", false},
		{"192.0.0.192", "metadata", "metadata", false},
		{"fd00:ec2::254", "metadata", "metadata", false},
		{"fd00:ec2::23", "metadata", "metadata", false},
		{"fd20:ce::254", "metadata", "metadata", false},
		{"fd00:c1::a9fe:a9fe", "metadata", "metadata", false},
		// IPv4-mapped: the IPv4 address itself
		{"::ffff:127.0.0.1", ok, "loopback", false},
		{"::ffff:10.0.0.1", ok, "private", false},
		{"::ffff:8.8.8.8", ok, ok, false},
		{"::ffff:169.254.169.254", "link-local", "link-local", false},
		{"::ffff:168.63.129.16", "metadata", "metadata", false},
		// NAT64, well-known prefix
		{"64:ff9b::808:808", ok, ok, true},
		{"64:ff9b::7f00:1", "NAT64 address (RFC 6052) carrying 127.0.0.1, a loopback", "NAT64", true},
		{"64:ff9b::a9fe:a9fe", "NAT64 address (RFC 6052) carrying 169.254.169.254, a link-local", "NAT64", true},
		{"64:ff9b::a00:1", "carrying 10.0.0.1, a private", "NAT64", true},
		{"64:ff9b::a83f:8110", "carrying 168.63.129.16, a cloud instance-metadata", "NAT64", true},
		{"64:ff9b::6464:64c8", "carrying 100.100.100.200", "NAT64", true},
		// NAT64, local-use prefix: refused whole
		{"64:ff9b:1::808:808", "local-use NAT64", "local-use NAT64", false},
		{"64:ff9b:1:a9fe:a9:fe00::", "local-use NAT64", "local-use NAT64", false},
		// SIIT (IPv4-translated)
		{"::ffff:0:7f00:1", "SIIT", "SIIT", false},
		{"::ffff:0:a9fe:a9fe", "SIIT", "SIIT", false},
		{"::ffff:0:808:808", ok, ok, false},
		// IPv4-compatible
		{"::7f00:1", "IPv4-compatible address (RFC 4291, deprecated) carrying 127.0.0.1", "IPv4-compatible", false},
		{"::a9fe:a9fe", "IPv4-compatible", "IPv4-compatible", false},
		{"::c0a8:101", "carrying 192.168.1.1", "IPv4-compatible", false},
		{"::808:808", ok, ok, false},
		{"::2", "carrying 0.0.0.2", "IPv4-compatible", false},
		{"::", "unspecified", "unspecified", false},
		// 6to4
		{"2002:7f00:1::1", "6to4 address (RFC 3056) carrying 127.0.0.1", "6to4", false},
		{"2002:a9fe:a9fe::1", "6to4", "6to4", false},
		{"2002:c0a8:101::1", "carrying 192.168.1.1", "6to4", false},
		{"2002:808:808::1", ok, ok, false},
		// Teredo: the server (bits 32-63) and the client (the last 32 bits, inverted)
		{"2001:0:7f00:1:8000:0:f7f7:f7f7", "Teredo address (RFC 4380) carrying 127.0.0.1", "Teredo", false},
		{"2001:0:808:808:8000:0:5601:5601", "Teredo address (RFC 4380) carrying 169.254.169.254", "Teredo", false},
		{"2001:0:808:808:8000:0:f5ff:fffe", "carrying 10.0.0.1", "Teredo", false},
		{"2001:0:808:808:8000:0:f7f7:f7f7", ok, ok, false},
	}
	var dflt *addr.DialPolicy
	public := dflt.PublicOnly()
	nat64, err := addr.NewDialPolicy("64:ff9b::/96")
	if err != nil {
		t.Fatal(err)
	}
	check := func(p *addr.DialPolicy, name, raw, want string) {
		t.Helper()
		err := p.CheckIP(netip.MustParseAddr(raw))
		switch {
		case want == ok && err != nil:
			t.Errorf("%s policy: CheckIP(%s) = %v, want it allowed", name, raw, err)
		case want != ok && (!errors.Is(err, addr.ErrRefusedAddress) || !strings.Contains(err.Error(), want)):
			t.Errorf("%s policy: CheckIP(%s) = %v, want a refusal saying %q", name, raw, err, want)
		}
	}
	for _, tt := range tests {
		check(dflt, "default", tt.ip, tt.dflt)
		check(public, "public-only", tt.ip, tt.public)
		if tt.allowedByPrefix {
			check(nat64, "NAT64-allowing", tt.ip, ok)
		}
		// The literal in a URL is judged the same way.
		a, err := addr.ParseAddress("http://"+net.JoinHostPort(tt.ip, "80")+"/", "JSONRPC")
		if err != nil {
			t.Fatal(err)
		}
		if err := dflt.Check(a); (err != nil) != (tt.dflt != ok) {
			t.Errorf("default policy: Check(%s) = %v", a.Raw, err)
		}
	}
}

// TestDialPolicyEmbeddedAtConnectTime: [::ffff:127.0.0.1] really reaches a loopback
// listener on Linux; the PublicOnly policy refuses it in Control, before a connection,
// and refuses "localhost" by what it resolves to. The default policy connects.
func TestDialPolicyEmbeddedAtConnectTime(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(lis.Addr().String())
	public := (*addr.DialPolicy)(nil).PublicOnly()
	for _, host := range []string{"::ffff:127.0.0.1", "localhost"} {
		c, err := public.Dialer().DialContext(t.Context(), "tcp", net.JoinHostPort(host, port))
		if err == nil {
			c.Close()
		}
		if !errors.Is(err, addr.ErrRefusedAddress) {
			t.Errorf("public-only dial of %s: %v, want a refusal", host, err)
		}
	}
	c, err := (*addr.DialPolicy)(nil).Dialer().DialContext(t.Context(), "tcp", net.JoinHostPort("::ffff:127.0.0.1", port))
	if err != nil {
		t.Fatalf("default dial of [::ffff:127.0.0.1]: %v (this kernel does not reach loopback that way)", err)
	}
	c.Close()
	<-accepted
	select {
	case <-accepted:
		t.Error("a refused dial connected")
	default:
	}
}
