package card_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
)

func TestDialPolicyCheck(t *testing.T) {
	allow, err := card.NewDialPolicy("169.254.10.0/24", "metadata.google.internal", "[fe80::1]")
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
		a, err := card.ParseAddress(tt.raw, a2a.TransportProtocol(tt.binding))
		if err != nil {
			t.Fatalf("ParseAddress(%q): %v", tt.raw, err)
		}
		err = (*card.DialPolicy)(nil).Check(a)
		if (err != nil) != tt.refused || (err != nil && !errors.Is(err, card.ErrRefusedAddress)) {
			t.Errorf("default policy: Check(%q) = %v, refused want %v", tt.raw, err, tt.refused)
		}
		// CheckDial asks Check, then what the names resolve to (only localhost, from the
		// hosts file, gets that far here).
		if err := (*card.DialPolicy)(nil).CheckDial(context.Background(), a); (err != nil) != tt.refused {
			t.Errorf("default policy: CheckDial(%q) = %v, refused want %v", tt.raw, err, tt.refused)
		}
		if err := allow.Check(a); (err != nil) != tt.allowed {
			t.Errorf("with allow list: Check(%q) = %v, refused want %v", tt.raw, err, tt.allowed)
		}
	}
}

func TestNewDialPolicyRejectsBadEntries(t *testing.T) {
	for _, e := range []string{"http://h/", "h:80", "a b", "10.0.0.0/99"} {
		if _, err := card.NewDialPolicy(e); err == nil {
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
	var p *card.DialPolicy
	if c, err := p.Dialer().DialContext(t.Context(), "tcp", net.JoinHostPort("0.0.0.0", port)); err == nil || !errors.Is(err, card.ErrRefusedAddress) {
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
	p := card.NewCredentialPolicy(card.OriginOf("https://agent.example/.well-known/agent-card.json"), "trusted.example", "other.example:8443")
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
		a, err := card.ParseAddress(tt.raw, b)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Allows(a, tt.useTLS); got != tt.allowed {
			t.Errorf("Allows(%s, tls %v) = %v, want %v", tt.raw, tt.useTLS, got, tt.allowed)
		}
	}
	if (card.CredentialPolicy{}).AllowsURL("https://agent.example/") {
		t.Error("the zero policy allows a URL")
	}
}
