package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// addrs are the listeners a card-table case is written against.
type addrs struct {
	base   string // http://127.0.0.1:PORT
	http   string // 127.0.0.1:PORT
	grpc   string // 127.0.0.1:PORT
	closed string // a port nobody serves
}

func (a addrs) url(path string) string { return a.base + path }

// listeners opens the HTTP and gRPC listeners a case's card names; New takes them over.
func listeners(t *testing.T) (net.Listener, net.Listener, addrs) {
	t.Helper()
	h, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(); g.Close() })
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	return h, g, addrs{base: "http://" + h.Addr().String(), http: h.Addr().String(), grpc: g.Addr().String(), closed: closed}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	if b, ok := v.([]byte); ok {
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type decl = lab.Decl

const (
	jsonrpc  = lab.JSONRPC
	grpcB    = lab.GRPC
	httpjson = lab.HTTPJSON
)

func TestNewRefusesInconsistentCards(t *testing.T) {
	tests := []struct {
		name       string
		opts       []Option
		card       func(a addrs) any
		wantSource card.Source // the interface named by the first *BindingError
		wantMsg    []string    // fragments of the joined error message
	}{
		{
			name: "seed v0.3: preferredTransport GRPC at the HTTP url",
			card: func(a addrs) any {
				return lab.V03Card("seed", a.url(PathJSONRPCV03), grpcB,
					decl{URL: a.url(PathJSONRPCV03), Binding: jsonrpc}, decl{URL: a.grpc, Binding: grpcB})
			},
			opts:       []Option{WithV03()},
			wantSource: card.SourcePrimary,
			wantMsg:    []string{"(the preferred entry) declares GRPC 0.3 at http://", "gRPC is not served at that address", "served there: JSONRPC 1.0 at", "GRPC 0.3 is served at 127.0.0.1:", "clients that honour the card's preference fail"},
		},
		{
			name: "seed verbatim: JSON-RPC at the root, GRPC preferred there, gRPC port declared",
			card: func(a addrs) any {
				return lab.V03Card("seed", a.base, grpcB, decl{URL: a.base, Binding: jsonrpc}, decl{URL: a.grpc, Binding: grpcB})
			},
			opts:       []Option{WithV03()},
			wantSource: card.SourcePrimary,
			wantMsg:    []string{"gRPC is not served at that address", "additionalInterfaces[0]", "JSONRPC 0.3 is not served at that address"},
		},
		{
			name: "seed v1.0: supportedInterfaces[0] GRPC at the HTTP URL",
			card: func(a addrs) any {
				return lab.V1Card("seed", decl{URL: a.base, Binding: grpcB, Version: card.V1},
					decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1}, decl{URL: a.grpc, Binding: grpcB, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"supportedInterfaces[0] (the preferred entry) declares GRPC 1.0 at http://", "GRPC 1.0 is served at 127.0.0.1:"},
		},
		{
			name: "GRPC as bare host:port of the HTTP listener without gRPC-on-HTTP",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.http, Binding: grpcB, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"GRPC 1.0 is not served at that address", "served there: JSONRPC 1.0 at http://"},
		},
		{
			name: "preferred binding not at the primary url",
			card: func(a addrs) any {
				return lab.V03Card("x", a.url(PathRESTV03), jsonrpc, decl{URL: a.url(PathJSONRPCV03), Binding: jsonrpc})
			},
			opts:       []Option{WithV03()},
			wantSource: card.SourcePrimary,
			wantMsg:    []string{"declares JSONRPC 0.3 at " + "http://", "/a2a/v0.3/rest: JSONRPC 0.3 is not served at that address", "JSONRPC 0.3 is served at http://"},
		},
		{
			name: "interface on a port nobody serves",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1}, decl{URL: a.closed, Binding: grpcB, Version: card.V1})
			},
			wantSource: card.Supported(1),
			wantMsg:    []string{"no listener of this server is at " + "127.0.0.1:", "nothing of this server is served there"},
		},
		{
			name: "wrong version: 0.3 declared where 1.0 is served",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V03})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"JSONRPC 0.3 is not served at that address", "served there: JSONRPC 1.0"},
		},
		{
			name: "wrong version: 1.0 declared at the v0.3 path",
			opts: []Option{WithV03()},
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPCV03), Binding: jsonrpc, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"JSONRPC 1.0 is not served at that address", "JSONRPC 1.0 is served at http://"},
		},
		{
			name: "missing protocolVersion",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"no protocolVersion"},
		},
		{
			name: "unknown protocolVersion",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: "2.0"})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{`protocolVersion "2.0"`},
		},
		{
			name: "binding case: grpc",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1}, decl{URL: a.grpc, Binding: "grpc", Version: card.V1})
			},
			wantSource: card.Supported(1),
			wantMsg:    []string{`binding "grpc" must be spelled "GRPC"`},
		},
		{
			name: "HTTP+JSON at the JSON-RPC path",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: httpjson, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"HTTP+JSON 1.0 is not served at that address", "HTTP+JSON 1.0 is served at http://"},
		},
		{
			name: "undeclared tenant",
			card: func(a addrs) any {
				c := lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1})
				c["supportedInterfaces"].([]map[string]any)[0]["tenant"] = "acme"
				return c
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{`tenant "acme" is declared, but this server routes no tenant`},
		},
		{
			name: "gRPC URL with an http:// scheme at the gRPC port",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: "http://" + a.grpc, Binding: grpcB, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"a gRPC address must be a bare host:port"},
		},
		{
			name: "https declared, plaintext served",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: "https://" + a.http + PathJSONRPC, Binding: jsonrpc, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"scheme https://, but that listener serves http://"},
		},
		{
			name: "JSON-RPC as a bare host:port",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.http, Binding: jsonrpc, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"JSONRPC needs an absolute http(s):// URL"},
		},
		{
			name: "custom binding",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: "https://example.com/bindings/ws", Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"is not one this server serves"},
		},
		{
			name: "another host",
			card: func(a addrs) any {
				_, port, _ := net.SplitHostPort(a.http)
				return lab.V1Card("x", decl{URL: "http://10.9.8.7:" + port + PathJSONRPC, Binding: jsonrpc, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"no listener of this server is at 10.9.8.7:"},
		},
		{
			name: "local address declared behind a public URL",
			opts: []Option{WithPublicURL("https://agent.example.com/team")},
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1})
			},
			wantSource: card.Supported(0),
			wantMsg:    []string{"no listener of this server is at 127.0.0.1:", "listeners: HTTP agent.example.com:443"},
		},
		{
			name: "gRPC on the HTTP port declared without gRPC-on-HTTP, though gRPC is served elsewhere",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.grpc, Binding: grpcB, Version: card.V1}, decl{URL: a.http, Binding: grpcB, Version: card.V1})
			},
			wantSource: card.Supported(1),
			wantMsg:    []string{"GRPC 1.0 is not served at that address", "GRPC 1.0 is served at 127.0.0.1:"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, g, a := listeners(t)
			raw := mustJSON(t, tt.card(a))
			opts := append([]Option{WithListeners(h, g), WithCardJSON(raw)}, tt.opts...)
			srv, err := New(Echo{}, append([]Option{echoInfo}, opts...)...)
			if err == nil {
				_ = srv.Shutdown(context.Background())
				t.Fatalf("New() accepted the card %s", raw)
			}
			if !errors.Is(err, ErrCardMismatch) {
				t.Fatalf("New() error = %v, want errors.Is ErrCardMismatch", err)
			}
			var be *BindingError
			if !errors.As(err, &be) {
				t.Fatalf("New() error = %T %v, want a *BindingError", err, err)
			}
			if be.Interface.Source != tt.wantSource {
				t.Errorf("BindingError.Interface.Source = %q, want %q (%v)", be.Interface.Source, tt.wantSource, err)
			}
			for _, frag := range tt.wantMsg {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("New() error = %q\nwant it to contain %q", err, frag)
				}
			}
			// The listeners were released: nothing answers there any more.
			if c, err := net.DialTimeout("tcp", a.http, time.Second); err == nil {
				c.Close()
				t.Errorf("HTTP listener %s still accepts after the card was refused", a.http)
			}
		})
	}
}

func TestNewAcceptsConsistentCards(t *testing.T) {
	tests := []struct {
		name   string
		opts   []Option
		card   func(a addrs) any
		public bool // URLs are public: do not probe them from here
	}{
		{
			name: "v1.0, gRPC preferred",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.grpc, Binding: grpcB, Version: card.V1},
					decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1}, decl{URL: a.url(PathREST), Binding: httpjson, Version: card.V1})
			},
		},
		{
			name: "v1.0, one interface out of those served",
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.url(PathREST), Binding: httpjson, Version: card.V1})
			},
		},
		{
			name: "URL spelling: upper-case scheme and host, localhost, trailing slash, 1.0.0",
			card: func(a addrs) any {
				_, hp, _ := net.SplitHostPort(a.http)
				_, gp, _ := net.SplitHostPort(a.grpc)
				return lab.V1Card("x", decl{URL: "HTTP://LOCALHOST:" + hp + PathJSONRPC + "/", Binding: jsonrpc, Version: "1.0.0"},
					decl{URL: "localhost:" + gp, Binding: grpcB, Version: card.V1})
			},
		},
		{
			name: "v0.3 card",
			opts: []Option{WithV03()},
			card: func(a addrs) any {
				return lab.V03Card("x", a.url(PathJSONRPCV03), jsonrpc, decl{URL: a.url(PathJSONRPCV03), Binding: jsonrpc},
					decl{URL: a.grpc, Binding: grpcB}, decl{URL: a.url(PathRESTV03), Binding: httpjson})
			},
		},
		{
			name: "v0.3 card, gRPC preferred at its own url",
			opts: []Option{WithV03()},
			card: func(a addrs) any {
				return lab.V03Card("x", a.grpc, grpcB, decl{URL: a.url(PathJSONRPCV03), Binding: jsonrpc})
			},
		},
		{
			name: "union card from a2a-go's compat producer",
			opts: []Option{WithV03()},
			card: func(a addrs) any {
				b, err := lab.UnionCard("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1},
					decl{URL: a.grpc, Binding: grpcB, Version: card.V1}, decl{URL: a.url(PathJSONRPCV03), Binding: jsonrpc, Version: card.V03},
					decl{URL: a.grpc, Binding: grpcB, Version: card.V03})
				if err != nil {
					panic(err)
				}
				return b
			},
		},
		{
			name: "gRPC on the HTTP port",
			opts: []Option{WithGRPCOnHTTP()},
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: a.http, Binding: grpcB, Version: card.V1}, decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1})
			},
		},
		{
			name:   "public URLs behind a proxy",
			opts:   []Option{WithPublicURL("https://Agent.Example.com/team/"), WithPublicGRPCAddr("grpc.example.com:443")},
			public: true,
			card: func(a addrs) any {
				return lab.V1Card("x", decl{URL: "https://agent.example.com:443/team" + PathJSONRPC, Binding: jsonrpc, Version: card.V1},
					decl{URL: "grpc.example.com:443", Binding: grpcB, Version: card.V1})
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, g, a := listeners(t)
			raw := mustJSON(t, tt.card(a))
			srv := startServer(t, append([]Option{WithListeners(h, g), WithCardJSON(raw)}, tt.opts...)...)
			ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
			defer cancel()
			got, err := card.Fetch(ctx, srv.LocalBaseURL())
			if err != nil {
				t.Fatalf("card.Fetch() error = %v", err)
			}
			if string(srv.CardJSON()) != string(raw) {
				t.Errorf("published card differs from the hand-written one")
			}
			if tt.public {
				return
			}
			for _, r := range probe.Card(ctx, got) {
				if r.Outcome != wire.Served {
					t.Errorf("probe %s = %s (%s), want served", r.Interface, r.Outcome, r.Detail)
				}
			}
		})
	}
}

func TestNewRefusesAnEmptyCard(t *testing.T) {
	_, err := New(Echo{}, echoInfo, WithCardJSON([]byte(`{"name":"x","supportedInterfaces":[]}`)))
	if !errors.Is(err, ErrCardMismatch) || !strings.Contains(err.Error(), "declares no interface") {
		t.Errorf("New(empty card) = %v, want ErrCardMismatch saying it declares no interface", err)
	}
	_, err = New(Echo{}, echoInfo, WithCardJSON([]byte(`{"name":`)))
	if !errors.Is(err, card.ErrMalformed) {
		t.Errorf("New(truncated card) = %v, want card.ErrMalformed", err)
	}
}

func TestNewConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		exec bool
		opts []Option
		want string
	}{
		{"nil executor", false, nil, "nil AgentExecutor"},
		{"public gRPC without a gRPC listener", true, []Option{WithPublicGRPCAddr("g.example.com:443")}, "no gRPC listener"},
		{"public gRPC as a URL", true, []Option{WithGRPCAddr("127.0.0.1:0"), WithPublicGRPCAddr("http://g.example.com:443")}, "bare host:port"},
		{"public URL with a query", true, []Option{WithPublicURL("https://a.example.com/?x=1")}, "query"},
		{"TLS files missing", true, []Option{WithTLS("/nonexistent/cert.pem", "/nonexistent/key.pem")}, "TLS certificate"},
		{"TLS config without a certificate", true, []Option{WithTLSConfig(&tls.Config{})}, "no certificate"},
		{"HTTP address unusable", true, []Option{WithHTTPAddr("256.0.0.1:0")}, "HTTP listener"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var exec a2asrv.AgentExecutor
			if tt.exec {
				exec = Echo{}
			}
			srv, err := New(exec, append([]Option{echoInfo}, tt.opts...)...)
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

// TestNewRefusesBytesA2AGoRefuses: a hand-written card that a2a-go's card resolver would
// refuse (a UTF-8 BOM before it) is not published; the same card without it is.
func TestNewRefusesBytesA2AGoRefuses(t *testing.T) {
	h, g, a := listeners(t)
	raw := mustJSON(t, lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1}))
	srv, err := New(Echo{}, echoInfo, WithListeners(h, g), WithCardJSON(append([]byte("\xef\xbb\xbf"), raw...)))
	if err == nil {
		_ = srv.Shutdown(context.Background())
		t.Fatal("New() accepted a card after a BOM")
	}
	if !errors.Is(err, card.ErrAmbiguous) || !strings.Contains(err.Error(), "byte order mark: a2a-go's card resolver refuses it") ||
		!strings.Contains(err.Error(), "save the document as UTF-8 without a byte order mark") {
		t.Errorf("New(BOM + card) = %v, want ErrAmbiguous saying a2a-go refuses the BOM and what to do", err)
	}
	h, g, a = listeners(t)
	raw = mustJSON(t, lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1}))
	srv, err = New(Echo{}, echoInfo, WithListeners(h, g), WithCardJSON(raw))
	if err != nil {
		t.Fatalf("New(card) = %v", err)
	}
	_ = srv.Shutdown(context.Background())
}
