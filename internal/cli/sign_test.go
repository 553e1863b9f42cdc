package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/signature"
)

func keyPath(name string) string { return filepath.Join("..", "..", "testdata", "keys", name) }

// TestSignThenLint: sign prints a card that lint verifies with the signer's JWKS; the
// same card edited after signing fails lint; an unsigned card fails --require-signature.
func TestSignThenLint(t *testing.T) {
	code, signed, stderr := runCLI(t, "", "sign", cardPath("v1-healthy.json"), "--key", keyPath("corpus-es256.private.jwk"))
	if code != ExitOK {
		t.Fatalf("sign exit %d: %s", code, stderr)
	}
	dir := t.TempDir()
	signedFile := filepath.Join(dir, "signed.json")
	if err := os.WriteFile(signedFile, []byte(signed), 0o600); err != nil {
		t.Fatal(err)
	}
	jwks := keyPath("corpus-jwks.json")

	code, out, _ := runCLI(t, "", "lint", signedFile, "--jwks", jwks, "--require-signature")
	if code != ExitOK || !strings.Contains(out, "signature-valid") || !strings.Contains(out, `kid "corpus-es256", ES256`) {
		t.Fatalf("lint of the signed card: exit %d\n%s", code, out)
	}

	code, out, _ = runCLI(t, "", "lint", signedFile, "--jwks", jwks, "-o", "json")
	var doc struct {
		OK         bool `json:"ok"`
		Signatures struct {
			Signatures []signature.SignatureCheck `json:"signatures"`
		} `json:"signatures"`
	}
	// v1-healthy.json has values a2a-js strips: a second signature over its form
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK || len(doc.Signatures.Signatures) != 2 ||
		doc.Signatures.Signatures[0].Status != signature.StatusValid || doc.Signatures.Signatures[0].Form != signature.FormSpec ||
		doc.Signatures.Signatures[1].Form != signature.FormJS || strings.Contains(out, "signature-variant") {
		t.Fatalf("lint -o json: exit %d, %v\n%s", code, err, out)
	}

	tampered := filepath.Join(dir, "tampered.json")
	var m map[string]any
	_ = json.Unmarshal([]byte(signed), &m)
	m["description"] = "rewritten after signing"
	b, _ := json.Marshal(m)
	_ = os.WriteFile(tampered, b, 0o600)
	code, out, _ = runCLI(t, "", "lint", tampered, "--jwks", jwks)
	if code != ExitFailed || !strings.Contains(out, "signature-invalid") {
		t.Fatalf("lint of the tampered card: exit %d\n%s", code, out)
	}

	// Signed but no key given: a warning, an error with --require-signature.
	code, out, _ = runCLI(t, "", "lint", signedFile)
	if code != ExitOK || !strings.Contains(out, "signature-unverified") {
		t.Fatalf("lint without keys: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "lint", cardPath("v1-healthy.json"), "--require-signature")
	if code != ExitFailed || !strings.Contains(out, "unsigned") {
		t.Fatalf("lint --require-signature of an unsigned card: exit %d\n%s", code, out)
	}
	// Without signature flags an unsigned card says nothing about signatures.
	if _, out, _ = runCLI(t, "", "lint", cardPath("v1-healthy.json")); strings.Contains(out, "unsigned") {
		t.Errorf("lint without signature flags reports unsigned:\n%s", out)
	}
}

func TestSignUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"no key":      {"sign", cardPath("v1-healthy.json")},
		"missing key": {"sign", cardPath("v1-healthy.json"), "--key", "/nonexistent.pem"},
		"public key":  {"sign", cardPath("v1-healthy.json"), "--key", keyPath("corpus-jwks.json")},
		"http jku":    {"sign", cardPath("v1-healthy.json"), "--key", keyPath("corpus-es256.private.jwk"), "--jku", "http://keys.example.com/jwks.json"},
		"bad alg":     {"sign", cardPath("v1-healthy.json"), "--key", keyPath("corpus-es256.private.jwk"), "--alg", "RS256"},
		"bad jwks":    {"lint", cardPath("v1-healthy.json"), "--jwks", cardPath("v1-healthy.json")},
		"http origin": {"lint", cardPath("v1-healthy.json"), "--jku-origin", "http://keys.example.com"},
	} {
		if code, _, stderr := runCLI(t, "", args...); code != ExitUsage || stderr == "" {
			t.Errorf("%s: exit %d, stderr %q; want %d with a message", name, code, stderr, ExitUsage)
		}
	}
	// A card a2a-js canonicalises differently: sign adds a signature over its form and says so.
	code, _, stderr := runCLI(t, `{"name":"a","description":"","version":"1","supportedInterfaces":[],"capabilities":{},"skills":[]}`,
		"sign", "-", "--key", keyPath("corpus-es256.private.jwk"))
	if code != ExitOK || !strings.Contains(stderr, "added a signature over the a2a-js canonical form") {
		t.Errorf("sign of a card a2a-js strips: exit %d, stderr %q", code, stderr)
	}
}

// TestSendRequireSignature: send --require-signature refuses a card rewritten after
// signing with exit 2 (the card cannot be used, as the README says), and the agent receives nothing but the card fetch.
func TestSendRequireSignature(t *testing.T) {
	key, err := signature.LoadSigningKey(keyPath("corpus-es256.private.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		rewrite bool
		code    int
	}{{"signed", false, ExitOK}, {"rewritten", true, ExitUsage}} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			agent := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC),
				lab.WithCard(func(a *lab.Agent) any {
					doc, _ := json.Marshal(lab.V1Card("signed", lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1}))
					signed, err := signature.Sign(doc, key)
					if err != nil {
						panic(err)
					}
					if tc.rewrite {
						signed = []byte(strings.Replace(string(signed), `"signed"`, `"evil"`, 1))
					}
					return signed
				}),
				lab.WithHTTPMiddleware(func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.URL.Path != "/.well-known/agent-card.json" {
							calls.Add(1)
						}
						h.ServeHTTP(w, r)
					})
				}))
			code, out, stderr := runCLI(t, "", "send", agent.BaseURL, "ping", "--jwks", keyPath("corpus-jwks.json"), "--require-signature")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, out, stderr)
			}
			if tc.rewrite {
				if calls.Load() != 0 || !strings.Contains(stderr, "does not verify") {
					t.Fatalf("%d calls reached the agent; stderr %s", calls.Load(), stderr)
				}
			} else if calls.Load() == 0 {
				t.Fatal("the message was not sent")
			}
		})
	}
	if code, _, stderr := runCLI(t, "", "send", "http://127.0.0.1:1", "ping", "--jwks", keyPath("corpus-jwks.json")); code != ExitUsage || !strings.Contains(stderr, "--require-signature") {
		t.Errorf("--jwks without --require-signature: exit %d, %s", code, stderr)
	}
}

// TestLintSignedCorpus: `a2abind lint --jwks` names each signed card of the corpus as it is
// (cards signed by a2a-js included), in text and in -o json.
func TestLintSignedCorpus(t *testing.T) {
	for file, want := range map[string]struct {
		code   string
		status signature.SignatureStatus
		exit   int
	}{
		"signed-a2a-js.json":             {"signature-valid", signature.StatusValid, ExitOK},
		"signed-a2a-js-variant.json":     {"signature-variant", signature.StatusVariant, ExitOK}, // its empty REQUIRED description is a warning: clients read the card without it
		"signed-a2a-python-variant.json": {"signature-variant", signature.StatusVariant, ExitOK},
		"signed-a2a-js-rewritten.json":   {"signature-invalid", signature.StatusInvalid, ExitFailed},
		"signed-unknown-key.json":        {"signature-unverified", signature.StatusUnverified, ExitOK},
	} {
		code, out, stderr := runCLI(t, "", "lint", cardPath(file), "--jwks", keyPath("corpus-jwks.json"), "-o", "json")
		var doc lintOutput
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != want.exit || doc.Signatures == nil || len(doc.Signatures.Signatures) != 1 {
			t.Errorf("%s: exit %d (want %d), %v\n%s%s", file, code, want.exit, err, out, stderr)
			continue
		}
		if got := doc.Signatures.Signatures[0].Status; got != want.status {
			t.Errorf("%s: status %s, want %s", file, got, want.status)
		}
		if !strings.Contains(out, `"code": "`+want.code+`"`) {
			t.Errorf("%s: no %s finding:\n%s", file, want.code, out)
		}
	}
}
