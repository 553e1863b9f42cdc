package delegate

import (
	"net/http"
	"testing"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
)

// TestCredentialScope: the caller's headers go to the card's origin as the user named
// it (scheme, host and port), or to an allowed host; a bare gRPC host:port counts as
// the origin it is dialled with.
func TestCredentialScope(t *testing.T) {
	fetched := &card.Card{Location: "https://redirected.example/.well-known/agent-card.json",
		Origin: addr.OriginOf("https://agent.example/"),
		Interfaces: []card.Interface{
			{URL: "https://agent.example/a2a", Binding: lab.JSONRPC, ProtocolVersion: card.V1, Preferred: true, Source: card.Supported(0)},
			{URL: "http://agent.example:443/a2a", Binding: lab.JSONRPC, ProtocolVersion: card.V1, Source: card.Supported(1)},
			{URL: "https://agent.example:8443/a2a", Binding: lab.JSONRPC, ProtocolVersion: card.V1, Source: card.Supported(2)},
			{URL: "https://redirected.example/a2a", Binding: lab.JSONRPC, ProtocolVersion: card.V1, Source: card.Supported(3)},
			{URL: "https://trusted.example:1234/a2a", Binding: lab.HTTPJSON, ProtocolVersion: card.V1, Source: card.Supported(4)},
			{URL: "agent.example:443", Binding: lab.GRPC, ProtocolVersion: card.V1, Source: card.Supported(5)},
			{URL: "grpcs://agent.example", Binding: lab.GRPC, ProtocolVersion: card.V03, Source: card.Supported(6)},
			{URL: "grpc://agent.example:443", Binding: lab.GRPC, ProtocolVersion: card.V03, Source: card.Supported(7)},
		}}
	file := &card.Card{Location: "card.json", Interfaces: []card.Interface{
		{URL: "h:9443", Binding: "GRPC", ProtocolVersion: card.V1, Preferred: true, Source: card.Supported(0)},
		{URL: "h:9444", Binding: "GRPC", ProtocolVersion: card.V1, Source: card.Supported(1)},
		{URL: "https://h:9443", Binding: lab.JSONRPC, ProtocolVersion: card.V1, Source: card.Supported(2)},
	}}
	tests := []struct {
		name  string
		c     *card.Card
		conn  addr.Conn
		opts  []Option
		allow map[string]bool // URL -> credentials sent
	}{
		{"fetched card: the named origin, not the one after redirects", fetched, addr.Conn{CredentialHosts: []string{"trusted.example"}}, nil, map[string]bool{
			"https://agent.example/a2a":        true,
			"http://agent.example:443/a2a":     false, // same host and port, cleartext
			"https://agent.example:8443/a2a":   false,
			"https://redirected.example/a2a":   false,
			"https://trusted.example:1234/a2a": true,
			"agent.example:443":                true, // dialled over TLS: the https origin
			"grpcs://agent.example":            true,
			"grpc://agent.example:443":         false,
		}},
		{"fetched card, plaintext gRPC: a bare host:port is the http origin", fetched, addr.Conn{}, []Option{WithPlaintextGRPC()}, map[string]bool{
			"https://agent.example/a2a": true,
			"agent.example:443":         false,
			"grpcs://agent.example":     true,
		}},
		{"card file: its preferred interface", file, addr.Conn{}, nil, map[string]bool{
			"h:9443":         true,
			"h:9444":         false,
			"https://h:9443": true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.conn.Header = http.Header{"Authorization": {"Bearer T"}}
			c, err := NewFromCard(tt.c, append([]Option{WithConn(tt.conn)}, tt.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, iface := range tt.c.Interfaces {
				want, ok := tt.allow[iface.URL]
				if !ok {
					continue
				}
				got := c.params[iface.Key()]["Authorization"] != nil
				if got != want || c.withheld[iface.Key()] == want {
					t.Errorf("%s: credentials sent = %v (withheld %v), want %v", iface.URL, got, c.withheld[iface.Key()], want)
				}
			}
		})
	}
}
