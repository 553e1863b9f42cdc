package delegate

import (
	"context"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestHTTP1AtAGRPCPortHasOneName (issue 44 item 3): a card declares gRPC at a port
// where an HTTP/1.x server answers, in the ways such servers answer an HTTP/2 preface
// or a TLS ClientHello. Probe and send read the same answer through wire (the server's
// first bytes, GRPCCall.Fill), not grpc-go's wording of it, which differs by the answer
// (send's TLS attempt said tls_mismatch where probe, trying plaintext first, said
// wrong_binding; both said malformed to an HTTP/1.0 status line or to one cut short):
// send's attempt there, over plaintext or TLS, is wrong_binding, and so is probe's result
// for the interface. An answer that is not HTTP/1.x stays
// malformed in both.
func TestHTTP1AtAGRPCPortHasOneName(t *testing.T) {
	answers := []struct {
		name   string
		answer string
		hangUp bool
		want   wire.Outcome
	}{
		{"400 and close", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request", true, wire.WrongBinding},
		{"400 kept open", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nBad Request", false, wire.WrongBinding},
		{"200", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello", false, wire.WrongBinding},
		{"505", "HTTP/1.1 505 HTTP Version Not Supported\r\nConnection: close\r\n\r\n", true, wire.WrongBinding},
		{"HTTP/1.0 400", "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\n\r\nunsupported protocol", true, wire.WrongBinding},
		{"a status line, then close", "HTTP/1.1 400 Bad Request\r\n", true, wire.WrongBinding},
		{"cut in the status line", "HTTP/1.1", true, wire.WrongBinding},
		{"plain text", "400 Bad Request: this is not HTTP/2\n", true, wire.Malformed},
	}
	for _, tt := range answers {
		for _, tls := range []bool{false, true} {
			if tls && tt.want != wire.WrongBinding {
				// Not HTTP/1.x: to a TLS ClientHello it is tls_mismatch (not a TLS server),
				// to probe's plaintext attempt malformed: two exchanges, two answers.
				continue
			}
			name := tt.name
			if tls {
				name += "/TLS"
			}
			t.Run(name, func(t *testing.T) {
				ln, err := lab.ListenAnswering([]byte(tt.answer), tt.hangUp)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = ln.Close() })
				a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithCard(func(a *lab.Agent) any {
					return lab.V1Card("http1-at-grpc", lab.Decl{URL: ln.Addr, Binding: lab.GRPC, Version: card.V1},
						lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
				}))
				ctx := testContext(t)
				c := newTestClient(t, ctx, a.BaseURL)
				if tls {
					// A card read from a file, its bare host:port taken for one elsewhere: the
					// delegate dials TLS only there, where probe tries plaintext first.
					parsed, err := card.Parse(a.CardJSON)
					if err != nil {
						t.Fatal(err)
					}
					if c, err = NewFromCard(parsed, notLoopback()); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { _ = c.Close() })
				}
				var tr Trace
				if _, err := c.SendMessage(WithTrace(ctx, &tr), userMessage("one name")); err != nil {
					t.Fatalf("SendMessage: %v (attempts %v)", err, tr.Attempts())
				}
				at := tr.Attempts()
				if len(at) != 2 || at[0].Outcome != tt.want {
					t.Errorf("attempts %v, want the gRPC interface %s, then JSON-RPC served", at, tt.want)
				}
				pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				for _, r := range probe.Card(pctx, c.Card()) {
					if r.Interface.Binding == lab.GRPC && r.Outcome != tt.want {
						t.Errorf("probe: %s is %s (%s), want %s as send says", r.Interface, r.Outcome, r.Detail, tt.want)
					}
				}
			})
		}
	}
}
