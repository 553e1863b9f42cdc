package signature_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/signature"
)

// tckVector is one case of testdata/signing/tck-shaped-vectors.json: a card shaped like
// the A2A TCK's signing vectors (CARD-SIGN-001/002), the form a2abind signs it in and the
// payload (RFC 8785, signatures left out) computed by a separate JCS.
type tckVector struct {
	Name    string
	Form    signature.Form
	Card    json.RawMessage
	Payload string
}

func tckVectors(t *testing.T) ([]tckVector, *signature.SigningKey, ed25519.PrivateKey) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "signing", "tck-shaped-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Seed, Kid string
		Cases     []tckVector
	}
	if err := json.Unmarshal(b, &f); err != nil || len(f.Cases) == 0 {
		t.Fatalf("vectors: %v (%d cases)", err, len(f.Cases))
	}
	seed := sha256.Sum256([]byte(f.Seed))
	priv := ed25519.NewKeyFromSeed(seed[:])
	k, err := signature.NewSigningKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	k.KeyID = f.Kid
	return f.Cases, k, priv
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// withOneSignature replaces doc's signatures with one entry.
func withOneSignature(t *testing.T, doc []byte, protected, signature string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	m["signatures"], _ = json.Marshal([]map[string]string{{"protected": protected, "signature": signature}})
	out, _ := json.Marshal(m)
	return out
}

// TestTCKShapedVectors: for each card shaped like the TCK's signing vectors, a2abind's
// payload is the expected one byte for byte, Sign writes the signature the standard
// library computes over it (EdDSA is deterministic), and a signature made the TCK's way
// (JCS of the card as written, signatures left out) is valid over a §8.4.1 form: never a
// variant, never said to be rejected by verifiers following the specification.
func TestTCKShapedVectors(t *testing.T) {
	vectors, key, priv := tckVectors(t)
	keys := keySet(t, key)
	protected := b64([]byte(`{"alg":"EdDSA","kid":"` + key.KeyID + `","typ":"JOSE"}`))
	for _, tc := range vectors {
		t.Run(tc.Name, func(t *testing.T) {
			got, err := signature.Canonicalize(tc.Card, tc.Form)
			if err != nil || string(got) != tc.Payload {
				t.Fatalf("payload (%s) = %s, %v\nwant %s", tc.Form, got, err, tc.Payload)
			}
			forms, _, err := signature.SignForms(tc.Card)
			if err != nil || forms[0] != tc.Form {
				t.Fatalf("SignForms = %v, %v; want %s first", forms, err, tc.Form)
			}
			// What the TCK computes: the signature over protected.payload, by the standard library.
			want := b64(ed25519.Sign(priv, []byte(protected+"."+b64([]byte(tc.Payload)))))

			signed, err := signature.Sign(tc.Card, key, signature.WithReplaceSignatures())
			if err != nil {
				t.Fatal(err)
			}
			again, _ := signature.Sign(tc.Card, key, signature.WithReplaceSignatures())
			if string(again) != string(signed) {
				t.Error("signing twice gave different bytes")
			}
			var out struct {
				Signatures []struct{ Protected, Signature string }
			}
			if err := json.Unmarshal(signed, &out); err != nil || len(out.Signatures) != len(forms) {
				t.Fatalf("signed card has %d signatures (%v), want %d", len(out.Signatures), err, len(forms))
			}
			if s := out.Signatures[0]; s.Protected != protected || s.Signature != want {
				t.Errorf("signature = %s..%s\nwant      %s..%s", s.Protected, s.Signature, protected, want)
			}

			for name, doc := range map[string][]byte{"TCK-made": withOneSignature(t, tc.Card, protected, want), "a2abind-made": signed} {
				c, v := verify(t, doc, signature.WithKeySet(keys))
				if s := v.Signatures[0]; s.Status != signature.StatusValid || s.Form != tc.Form {
					t.Errorf("%s: signatures[0] = %+v, want valid over %s", name, s, tc.Form)
				}
				for _, f := range signatureFindings(lint.Lint(c)) {
					if f.Code != "signature-valid" || strings.Contains(f.Message, "verifiers that follow") {
						t.Errorf("%s: finding %s: %s", name, f.Code, f.Message)
					}
				}
			}
		})
	}
}

// TestTCKShapedVectorsAnySignature: a card verifies when any one signature does (as the
// TCK, a2a-js 1.3.0 and a2abind read `signatures`), whatever fails before it.
func TestTCKShapedVectorsAnySignature(t *testing.T) {
	vectors, key, priv := tckVectors(t)
	tc := vectors[0]
	protected := b64([]byte(`{"alg":"EdDSA","kid":"` + key.KeyID + `","typ":"JOSE"}`))
	good := map[string]string{"protected": protected, "signature": b64(ed25519.Sign(priv, []byte(protected+"."+b64([]byte(tc.Payload)))))}
	other := map[string]string{"protected": b64([]byte(`{"alg":"ES384","kid":"v2","typ":"JOSE"}`)), "signature": "AA"}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(tc.Card, &m)
	m["signatures"], _ = json.Marshal([]map[string]string{other, good})
	doc, _ := json.Marshal(m)
	_, v := verify(t, doc, signature.WithKeySet(keySet(t, key)))
	if len(v.Signatures) != 2 || v.Signatures[0].Status != signature.StatusInvalid || v.Signatures[1].Status != signature.StatusValid || !v.Verified() {
		t.Fatalf("signatures = %+v, want invalid then valid, card verified", v.Signatures)
	}
}

// signatureFindings keeps the findings of the signature rules.
func signatureFindings(findings []card.Finding) []card.Finding {
	var out []card.Finding
	for _, x := range findings {
		if x.Code == card.CodeUnsigned || strings.HasPrefix(x.Code, "signature-") {
			out = append(out, x)
		}
	}
	return out
}
