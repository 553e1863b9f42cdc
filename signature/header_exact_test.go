package signature_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/signature"
)

// TestProtectedHeaderReadExactly (issue 17): a protected header is read as go-jose and
// the SDKs read it, names matched exactly; a member named like alg/kid but not exactly,
// or a repeated member, makes the signature invalid rather than read two ways.
func TestProtectedHeaderReadExactly(t *testing.T) {
	for header, want := range map[string]string{
		`{"alg":"ES256","typ":"JOSE","kid":"a","KID":"b"}`:   `the member "KID", named like "kid" but not exactly`,
		`{"alg":"ES256","typ":"JOSE","kid":"a","kid":"b"}`:   `repeats the member "kid"`,
		`{"ALG":"ES256","typ":"JOSE","kid":"a"}`:             `the member "ALG", named like "alg"`,
		`{"alg":"ES256","typ":"JOSE","kid":"a","x-kid":"b"}`: "", // an unknown member is fine
	} {
		doc := `{"name":"a","supportedInterfaces":[],"signatures":[{"protected":"` +
			base64.RawURLEncoding.EncodeToString([]byte(header)) + `","signature":"AA"}]}`
		c, err := card.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		v, err := signature.VerifySignatures(context.Background(), c)
		if err != nil || len(v.Signatures) != 1 {
			t.Fatalf("%s: %+v %v", header, v, err)
		}
		s := v.Signatures[0]
		if want == "" {
			if s.Status != signature.StatusUnverified || s.KeyID != "a" {
				t.Errorf("%s: %+v, want unverified kid a", header, s)
			}
			continue
		}
		if s.Status != signature.StatusInvalid || !strings.Contains(s.Reason, want) {
			t.Errorf("%s: %s %q, want invalid saying %q", header, s.Status, s.Reason, want)
		}
	}
}
