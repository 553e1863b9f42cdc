package exporter_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/signature"
)

// TestProbe_CardInfoAndSignature: a2abind_card_info carries the SHA-256 of the document
// as served, which changes when the card does (the drift signal), and
// a2abind_card_signature the card's signature state: unsigned, verified with the
// module's JWKS, unverified without it, invalid once a signed member is edited; the
// verifying key's expiry is a2abind_card_signing_key_expiry.
func TestProbe_CardInfoAndSignature(t *testing.T) {
	t.Parallel()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := signature.NewSigningKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := key.PublicJWKS()
	if err != nil {
		t.Fatal(err)
	}
	const exp = 4102444800 // 2100-01-01: the key's expiry, exported as a2abind_card_signing_key_expiry
	jwks = []byte(strings.Replace(string(jwks), `"kty"`, fmt.Sprintf(`"exp":%d,"kty"`, exp), 1))
	jwksFile := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwksFile, jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	plain, _ := json.Marshal(lab.V1Card("drift", lab.Decl{URL: "http://127.0.0.1:1/a2a", Binding: lab.JSONRPC, Version: "1.0"}))
	signed, err := signature.Sign(plain, key)
	if err != nil {
		t.Fatal(err)
	}
	tampered := []byte(strings.Replace(string(signed), `"drift"`, `"drift2"`, 1))
	if string(tampered) == string(signed) {
		t.Fatal("the tampering changed nothing")
	}
	var serving atomic.Pointer[[]byte]
	serving.Store(&plain)
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(*serving.Load())
	}))
	t.Cleanup(cards.Close)
	base := start(t, mustConfig(t, fmt.Sprintf("modules: {keys: {signatures: {jwks: [%q]}}}", jwksFile)))

	for _, tc := range []struct {
		name   string
		doc    []byte
		module string
		state  string
	}{
		{"unsigned", plain, "default", "unsigned"},
		{"signed, trusted key", signed, "keys", "verified"},
		{"signed, no key", signed, "default", "unverified"},
		{"signed, then edited", tampered, "keys", "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			serving.Store(&tc.doc)
			_, _, f := scrape(t, base, probePath(cards.URL, tc.module))
			sum := sha256.Sum256(tc.doc)
			mustValue(t, f, "a2abind_card_info", map[string]string{"sha256": hex.EncodeToString(sum[:]), "shape": "v1.0"}, 1)
			if n := len(f["a2abind_card_info"].GetMetric()); n != 1 {
				t.Errorf("%d a2abind_card_info series, want 1", n)
			}
			for _, s := range []string{"verified", "partial", "invalid", "unverified", "unsigned"} {
				want := 0.0
				if s == tc.state {
					want = 1
				}
				mustValue(t, f, "a2abind_card_signature", map[string]string{"status": s}, want)
			}
			v, ok := value(f, "a2abind_card_signing_key_expiry", nil)
			switch {
			case tc.state == "verified" && v != exp:
				t.Errorf("a2abind_card_signing_key_expiry = %v (present %v), want %d", v, ok, exp)
			case tc.state != "verified" && ok:
				t.Errorf("a2abind_card_signing_key_expiry = %v without a verifying key", v)
			}
		})
	}
}
