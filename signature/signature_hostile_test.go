package signature_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/signature"
)

// TestVerifyHostileCards: whatever a card's signatures hold, checking them stays bounded
// and what reaches a terminal is quoted.
func TestVerifyHostileCards(t *testing.T) {
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	withSigs := func(sigs any) []byte {
		var m map[string]any
		_ = json.Unmarshal([]byte(healthyCard), &m)
		m["signatures"] = sigs
		out, _ := json.Marshal(m)
		return out
	}
	many := make([]any, 10000)
	for i := range many {
		many[i] = map[string]any{"protected": b64(`{"alg":"ES256","kid":"k","typ":"JOSE"}`), "signature": "AA"}
	}
	cases := []struct {
		name   string
		doc    []byte
		want   int // results
		reason string
	}{
		{"10,000 signatures", withSigs(many), 1, "over the limit"},
		{"huge protected header", withSigs([]any{map[string]any{"protected": strings.Repeat("A", 100<<10), "signature": "AA"}}), 1, "over 8192 bytes"},
		{"signatures not a list", withSigs(map[string]any{"protected": "x"}), 1, "not a list"},
		{"entry not an object", withSigs([]any{"x", 1}), 1, "not a list"},
		{"control characters in alg and kid", withSigs([]any{map[string]any{"protected": b64(`{"alg":"\u001b[31mES256","kid":"\u001b[2J","typ":"JOSE"}`), "signature": "AA"}}), 1, "not accepted"},
		{"jku to the metadata address", withSigs([]any{map[string]any{"protected": b64(`{"alg":"ES256","kid":"k","typ":"JOSE","jku":"http://169.254.169.254/latest/meta-data"}`), "signature": "AA"}}), 1, "not https"},
		{"jku unix socket", withSigs([]any{map[string]any{"protected": b64(`{"alg":"ES256","kid":"k","typ":"JOSE","jku":"unix:///var/run/docker.sock"}`), "signature": "AA"}}), 1, "not an absolute URL"},
		{"empty list", withSigs([]any{}), 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := card.Parse(tc.doc)
			if err != nil {
				t.Fatal(err)
			}
			v, err := signature.VerifySignatures(context.Background(), c, signature.WithJKUOrigins("https://keys.example.com"))
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Signatures) != tc.want {
				t.Fatalf("%d results, want %d: %+v", len(v.Signatures), tc.want, v.Signatures)
			}
			for _, s := range v.Signatures {
				if !strings.Contains(s.Reason, tc.reason) {
					t.Errorf("reason %q, want %q", s.Reason, tc.reason)
				}
			}
			for _, f := range lint.Lint(c) {
				if strings.ContainsAny(f.Message, "\x1b\x00") {
					t.Errorf("finding carries a raw control character: %q", f.Message)
				}
			}
		})
	}
	// A JWKS with too many keys is refused.
	keys := make([]any, signature.MaxJWKSKeys+1)
	for i := range keys {
		keys[i] = map[string]any{"kty": "OKP", "crv": "Ed25519", "x": b64(strings.Repeat("x", 32)), "kid": fmt.Sprint(i)}
	}
	b, _ := json.Marshal(map[string]any{"keys": keys})
	if _, err := signature.ParseKeySet(b, "big"); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("ParseKeySet(%d keys) = %v", len(keys), err)
	}
}

// TestVerifyJKUSilentServer: a jku server that never answers leaves the signature
// unverified once WithJKUTimeout passes, and nothing keeps running.
func TestVerifyJKUSilentServer(t *testing.T) {
	// The handler never answers: it returns only when the test ends. Returning when the
	// request's context ended wrote an empty 200, and once under -race and load (./test.sh)
	// the verifier read it ("is not JSON") instead of timing out.
	release := make(chan struct{})
	silent := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer silent.Close()
	defer close(release) // before Close, which waits for the handlers
	k := newKey(t, "ES256")
	doc := sign(t, healthyCard, k, signature.WithSignJKU(silent.URL+"/jwks.json"))
	_, v := verify(t, doc, signature.WithJKUOrigins(silent.URL), signature.WithJKUClient(silent.Client()), signature.WithJKUTimeout(200*time.Millisecond))
	if got := onlyCheck(t, v); got.Status != signature.StatusUnverified || !strings.Contains(got.Reason, "Timeout") {
		t.Errorf("check = %+v, want unverified after the timeout", got)
	}
}
