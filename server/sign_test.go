package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"net/url"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/signature"
)

func signingKey(t *testing.T) *signature.SigningKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := signature.NewSigningKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestCardSigning: the published card (v1.0 and union) carries a signature that verifies
// over the spec form with the JWKS the server publishes at the jku's path.
func TestCardSigning(t *testing.T) {
	const jku = "https://agent.example.com/.well-known/jwks.json"
	for name, extra := range map[string][]Option{"v1.0": nil, "union": {WithV03()}} {
		t.Run(name, func(t *testing.T) {
			k := signingKey(t)
			srv := startServer(t, append([]Option{WithHTTPAddr("127.0.0.1:0"), WithCardSigning(k, jku)}, extra...)...)
			status, h, body := get(t, srv.BaseURL()+"/.well-known/jwks.json")
			if status != http.StatusOK || h.Get("Content-Type") != "application/jwk-set+json" {
				t.Fatalf("GET the JWKS: %d %s", status, h.Get("Content-Type"))
			}
			jwks, err := signature.ParseKeySet([]byte(body), "served JWKS")
			if err != nil || jwks.Len() != 1 {
				t.Fatalf("served JWKS: %v (%d keys)", err, jwks.Len())
			}
			c, err := card.Load(context.Background(), srv.CardURL())
			if err != nil {
				t.Fatal(err)
			}
			v, err := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(jwks))
			// A union card is signed over the card as written (the TCK vectors' reading of
			// §8.4.1), which covers its v0.3 url and preferredTransport (issue 17), plus
			// a2a-js's form, which covers the supportedInterfaces a2a-js reads (issue 44).
			want, form, n := signature.StatusValid, signature.FormSpec, 1
			if name == "union" {
				form, n = signature.FormNoPresence, 2
			}
			if err != nil || len(v.Signatures) != n {
				t.Fatalf("VerifySignatures = %+v, %v; want %d signatures", v, err, n)
			}
			got := v.Signatures[0]
			if got.Status != want || got.Form != form || got.JKU != jku || got.KeyID != k.KeyID || got.Algorithm != "EdDSA" || len(got.Uncovered) != 0 {
				t.Fatalf("signature = %+v, want %s (%s) EdDSA with the jku", got, want, form)
			}
			if n == 2 {
				// over a2a-js's bytes, which equal the spec form's on this card
				if js := v.Signatures[1]; js.Form != signature.FormSpec || js.Status != signature.StatusPartial || js.JKU != jku {
					t.Fatalf("second signature = %+v, want the spec (= a2a-js) form, partial, with the jku", js)
				}
			}
		})
	}
}

func TestCardSigningRefusesBadJKU(t *testing.T) {
	for _, jku := range []string{"http://agent.example.com/jwks.json", "https://agent.example.com", "https://agent.example.com" + card.WellKnownPath} {
		if _, err := New(Echo{}, WithHTTPAddr("127.0.0.1:0"), WithCardSigning(signingKey(t), jku)); err == nil {
			t.Errorf("jku %q accepted", jku)
		}
	}
	if _, err := New(Echo{}, WithHTTPAddr("127.0.0.1:0"), WithCardSigning(nil, "")); err == nil {
		t.Error("nil key accepted")
	}
}

// TestCardSigningMount: Mount registers the JWKS path with the card.
func TestCardSigningMount(t *testing.T) {
	srv := newServer(t, WithHTTPAddr("127.0.0.1:0"), WithCardSigning(signingKey(t), "https://agent.example.com/keys.json"))
	mux := http.NewServeMux()
	if err := srv.Mount(mux); err != nil {
		t.Fatal(err)
	}
	if _, pattern := mux.Handler(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/keys.json"}, Host: "localhost"}); pattern != "/keys.json" {
		t.Errorf("Mount registered no JWKS path (pattern %q)", pattern)
	}
}
