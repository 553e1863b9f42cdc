package card_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/signature"
)

// corpusKeys is the JWKS of the signed corpus (testdata/keys/README.md).
var corpusKeys = filepath.Join("..", "testdata", "keys", "corpus-jwks.json")

// signedCorpus is the table of signed cards in testdata/cards (interop's -update-signed
// regenerates them; interop checks the a2a-js verdicts against a2a-js itself): what
// VerifySignatures says of each with the corpus JWKS, and the signature findings lint
// reports then. Files of the main corpus appear here for the unsigned rule.
var signedCorpus = []struct {
	file     string
	status   signature.SignatureStatus // "" for an unsigned card
	form     signature.Form
	findings []f
	says     string // a phrase the first finding's message must contain
}{
	{"signed-a2a-js.json", signature.StatusValid, signature.FormSpec, []f{{"signature-valid", ""}}, `kid "corpus-es256", ES256`},
	{"signed-a2a-js-variant.json", signature.StatusVariant, signature.FormJS, []f{{"signature-variant", ""}}, "a2a-js (@a2a-js/sdk 1.3.0"},
	{"signed-a2a-python-variant.json", signature.StatusVariant, signature.FormPython, []f{{"signature-variant", ""}}, "a2a-python"},
	{"signed-a2a-js-rewritten.json", signature.StatusInvalid, "", []f{{"signature-invalid", ""}}, "does not verify"},
	// a union card signed over the spec form by a2abind before issue 17: url, preferredTransport
	// and protocolVersion are outside the signature, so it is partial, never valid
	{"signed-a2abind.json", signature.StatusPartial, signature.FormSpec, []f{{"signature-partial", ""}}, "does not cover url, preferredTransport and protocolVersion"},
	{"signed-unknown-key.json", signature.StatusUnverified, "", []f{{"signature-unverified", ""}}, "jku origin https://keys.example.com:443 is not one you allowed"},
	{"signed-alg-none.json", signature.StatusInvalid, "", []f{{"signature-invalid", ""}}, `alg "none"`},
	{"v1-healthy.json", "", "", []f{{"unsigned", ""}}, "no signature"},
}

func signatureFindings(findings []card.Finding) []card.Finding {
	var out []card.Finding
	for _, x := range findings {
		if x.Code == "unsigned" || strings.HasPrefix(x.Code, "signature-") {
			out = append(out, x)
		}
	}
	return out
}

func TestSignedCorpus(t *testing.T) {
	keys, err := signature.LoadKeySet(corpusKeys)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range signedCorpus {
		t.Run(tc.file, func(t *testing.T) {
			c, err := card.Parse(readCard(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			v, err := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(keys))
			if err != nil {
				t.Fatal(err)
			}
			if tc.status == "" {
				if v.Signed() {
					t.Fatalf("signatures = %+v, want none", v.Signatures)
				}
			} else {
				if len(v.Signatures) != 1 || v.Signatures[0].Status != tc.status || v.Signatures[0].Form != tc.form {
					t.Fatalf("signatures = %+v, want one %s (%q)", v.Signatures, tc.status, tc.form)
				}
			}
			got := signatureFindings(lint.Lint(c))
			if diff := cmp.Diff(tc.findings, codes(got)); diff != "" {
				t.Fatalf("signature findings (-want +got):\n%s", diff)
			}
			if !strings.Contains(got[0].Message, tc.says) {
				t.Errorf("message %q does not say %q", got[0].Message, tc.says)
			}
		})
	}
}
