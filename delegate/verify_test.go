package delegate_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/signature"
)

// TestRequireSignatureRefusesBeforeSending: with delegate.RequireSignature, a card whose
// signature does not verify (rewritten after signing, signed by an unknown key, unsigned)
// is refused with ErrCardRejected, and the agent receives nothing but the card fetch;
// the correctly signed card delivers the message, through the interfaces it covers only.
func TestRequireSignatureRefusesBeforeSending(t *testing.T) {
	es, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := signature.NewSigningKey(es, "")
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := key.PublicJWKS()
	keys, err := signature.ParseKeySet(jwks, "test JWKS")
	if err != nil {
		t.Fatal(err)
	}
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	strangerKey, _ := signature.NewSigningKey(stranger, "")

	signedWith := func(k *signature.SigningKey, rewrite func(string) string) func(a *lab.Agent) any {
		return func(a *lab.Agent) any {
			doc, err := json.Marshal(lab.V1Card("signed", lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1}))
			if err != nil {
				panic(err)
			}
			if k == nil {
				return doc
			}
			signed, err := signature.Sign(doc, k)
			if err != nil {
				panic(err)
			}
			return []byte(rewrite(string(signed)))
		}
	}
	same := func(s string) string { return s }
	cases := []struct {
		name   string
		card   func(a *lab.Agent) any
		refuse string
	}{
		{"signed with the trusted key", signedWith(key, same), ""},
		{"rewritten after signing", signedWith(key, func(s string) string { return strings.Replace(s, `"signed"`, `"forged"`, 1) }), "does not verify"},
		{"signed by an unknown key", signedWith(strangerKey, same), "no key with kid"},
		{"unsigned", signedWith(nil, same), "no signature"},
		// v0.3 members added to a signed v1.0 card: the spec form still verifies, but it
		// does not cover url, so the signature is partial (issue 17): the client calls only
		// the supportedInterfaces it covers, never the added url (issue 44)
		{"v0.3 url added after signing", signedWith(key, func(s string) string {
			return strings.Replace(s, "{", `{"url": "http://127.0.0.2:1/a2a", "preferredTransport": "JSONRPC", `, 1)
		}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			agent := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithCard(tc.card),
				lab.WithHTTPMiddleware(func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.URL.Path != "/.well-known/agent-card.json" {
							calls.Add(1)
						}
						h.ServeHTTP(w, r)
					})
				}))
			ctx := context.Background()
			c, err := delegate.New(ctx, agent.BaseURL, delegate.WithCardVerifier(delegate.RequireSignature(signature.WithKeySet(keys))))
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("New() = %v", err)
				}
				defer c.Close()
				if len(c.Card().Interfaces) != 1 || len(c.Candidates()) != 1 || strings.Contains(c.Candidates()[0].URL, "127.0.0.2") {
					t.Fatalf("candidates = %v, card interfaces = %v; want the signed supportedInterfaces[0] only", c.Candidates(), c.Card().Interfaces)
				}
				msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))
				if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg}); err != nil {
					t.Fatalf("SendMessage() = %v", err)
				}
				if calls.Load() == 0 {
					t.Fatal("the agent saw no call")
				}
				return
			}
			if !errors.Is(err, delegate.ErrCardRejected) || !strings.Contains(err.Error(), tc.refuse) {
				t.Fatalf("New() = %v, want ErrCardRejected saying %q", err, tc.refuse)
			}
			if n := calls.Load(); n != 0 {
				t.Fatalf("the agent received %d requests besides the card fetch", n)
			}
			// NewFromCard refuses the same card.
			cd, err := card.Load(ctx, agent.BaseURL)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := delegate.NewFromCard(cd, delegate.WithCardVerifier(delegate.RequireSignature(signature.WithKeySet(keys)))); !errors.Is(err, delegate.ErrCardRejected) {
				t.Fatalf("NewFromCard() = %v, want ErrCardRejected", err)
			}
		})
	}
}
