package interop

import (
	"bytes"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/a2abind/a2abind/signature"
)

var updateSigned = flag.Bool("update-signed", false, "regenerate testdata/cards/signed-*.json (needs Node and the test keys in testdata/keys)")

// Test-only keys of the signed corpus (never use them for anything else).
var (
	corpusKeyFile  = filepath.Join("..", "testdata", "keys", "corpus-es256.private.jwk")
	corpusOtherKey = filepath.Join("..", "testdata", "keys", "other-ed25519.private.jwk")
	corpusJWKS     = filepath.Join("..", "testdata", "keys", "corpus-jwks.json")
)

const corpusKid = "corpus-es256"

func cardsPath(name string) string { return filepath.Join("..", "testdata", "cards", name) }

// TestSignedCorpusAgainstA2AJS checks what the signed corpus says about a2a-js against
// a2a-js itself: it verifies the cards it signed (plain and variant) and rejects the one a
// gateway rewrote. With -update-signed it first regenerates the corpus.
func TestSignedCorpusAgainstA2AJS(t *testing.T) {
	if *updateSigned {
		regenerateSignedCorpus(t)
	}
	jwks, err := os.ReadFile(corpusJWKS)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"signed-a2a-js.json":           true,
		"signed-a2a-js-variant.json":   true,
		"signed-a2a-js-rewritten.json": false,
		"signed-a2abind.json":          true,
	}
	var reqs []map[string]any
	var names []string
	for name := range want {
		doc, err := os.ReadFile(cardsPath(name))
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		reqs = append(reqs, map[string]any{"mode": "verify", "card": json.RawMessage(doc), "jwks": json.RawMessage(jwks)})
	}
	for i, r := range jsSign(t, reqs) {
		if ok, _ := r["ok"].(bool); ok != want[names[i]] {
			t.Errorf("a2a-js verify %s: ok=%v (%v), want %v", names[i], ok, r["error"], want[names[i]])
		}
	}
}

func regenerateSignedCorpus(t *testing.T) {
	t.Helper()
	priv, err := os.ReadFile(corpusKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := signature.ParseSigningKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	other, err := signature.LoadSigningKey(corpusOtherKey)
	if err != nil {
		t.Fatal(err)
	}
	var privMap map[string]any
	_ = json.Unmarshal(priv, &privMap)
	write := func(name string, doc []byte) {
		var out bytes.Buffer
		if err := json.Indent(&out, doc, "", "  "); err != nil {
			t.Fatal(err)
		}
		out.WriteByte('\n')
		if err := os.WriteFile(cardsPath(name), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plain := signatureCards["plain"]
	res := jsSign(t, []map[string]any{
		{"mode": "sign", "card": json.RawMessage(plain), "jwk": privMap, "alg": "ES256", "kid": corpusKid},
		{"mode": "sign", "card": json.RawMessage(signatureCards["empty-required"]), "jwk": privMap, "alg": "ES256", "kid": corpusKid},
	})
	jsPlain, _ := json.Marshal(res[0])
	write("signed-a2a-js.json", jsPlain)
	jsVariant, _ := json.Marshal(res[1])
	write("signed-a2a-js-variant.json", jsVariant)
	write("signed-a2a-js-rewritten.json", []byte(strings.Replace(string(jsPlain), "https://agent.example.com/a2a", "https://gateway.example.net/agents/interop/a2a", 1)))

	ours, err := signature.Sign([]byte(signatureCards["unknown-fields"]), key)
	if err != nil {
		t.Fatal(err)
	}
	write("signed-a2abind.json", ours)
	unknownKey, err := signature.Sign([]byte(signatureCards["plain"]), other, signature.WithSignJKU("https://keys.example.com/.well-known/jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	write("signed-unknown-key.json", unknownKey)

	// a2a-python cannot run here: its form is built from its source semantics (signature.FormPython)
	// and signed the way PyJWT signs (compact JWS, header sorted, typ kept).
	py, err := signature.Canonicalize([]byte(signatureCards["non-ascii"]), signature.FormPython)
	if err != nil {
		t.Fatal(err)
	}
	write("signed-a2a-python-variant.json", attach(t, signatureCards["non-ascii"], privateOf(t, priv), corpusKid, py))
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"` + corpusKid + `","typ":"JOSE"}`))
	var m map[string]any
	_ = json.Unmarshal([]byte(signatureCards["plain"]), &m)
	m["signatures"] = []any{map[string]any{"protected": none, "signature": "AA"}}
	algNone, _ := json.Marshal(m)
	write("signed-alg-none.json", algNone)
}

func privateOf(t *testing.T, jwk []byte) crypto.Signer {
	t.Helper()
	var k jose.JSONWebKey
	if err := k.UnmarshalJSON(jwk); err != nil {
		t.Fatal(err)
	}
	return k.Key.(crypto.Signer)
}

// attach signs payload (ES256, kid) and adds the detached signature to doc.
func attach(t *testing.T, doc string, key crypto.Signer, kid string, payload []byte) []byte {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("JOSE").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := jws.DetachedCompactSerialize()
	p, sig, _ := strings.Cut(compact, "..")
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	m["signatures"] = []any{map[string]any{"protected": p, "signature": sig}}
	out, _ := json.Marshal(m)
	return out
}
