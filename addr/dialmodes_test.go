package addr

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestDialModes: a bare gRPC host:port is plaintext only when asked or when the card came
// over http://, either mode on loopback, else TLS only; a scheme decides by itself.
func TestDialModes(t *testing.T) {
	https, http, file := OriginOf("https://agent.example/"), OriginOf("http://agent.example/"), Origin{}
	for _, tt := range []struct {
		url           string
		named         Origin
		asked         bool
		useTLS, plain bool
	}{
		{"agent.example:50051", https, false, true, false},
		{"agent.example:50051", file, false, true, false},
		{"agent.example:50051", file, true, false, true},
		{"agent.example:50051", http, false, false, true},
		{"127.0.0.1:50051", file, false, true, true},
		{"localhost:50051", https, false, true, true},
		{"[::1]:50051", file, false, true, true},
		{"grpcs://agent.example:443", file, true, true, false},
		{"grpc://agent.example:80", https, false, false, true},
	} {
		a, err := ParseAddress(tt.url, a2a.TransportProtocolGRPC)
		if err != nil {
			t.Fatalf("ParseAddress(%q) error = %v", tt.url, err)
		}
		if useTLS, plain := DialModes(a, tt.named, tt.asked); useTLS != tt.useTLS || plain != tt.plain {
			t.Errorf("DialModes(%q, %v, asked %v) = TLS %v, plaintext %v; want %v, %v", tt.url, tt.named, tt.asked, useTLS, plain, tt.useTLS, tt.plain)
		}
	}
}
