package guard_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/signature"
)

// TestRequireSignature: with WithRequireSignature a round verifies the upstream card
// before anything is probed. An unsigned card, or one signed by a key the guard does not
// trust, is withheld in strict and normalize mode alike (re-signing included) and not one
// request reaches the agent; a card signed by a trusted key is probed and published, and
// --normalize may drop its unserved interfaces (all covered by the signature) and
// re-sign the result. Without the option the unsigned card is published as before.
func TestRequireSignature(t *testing.T) {
	t.Parallel()
	trusted, err := signature.LoadSigningKey("../testdata/keys/corpus-es256.private.jwk")
	if err != nil {
		t.Fatal(err)
	}
	other, err := signature.LoadSigningKey("../testdata/keys/other-ed25519.private.jwk")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := signature.LoadKeySet("../testdata/keys/corpus-jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	require := guard.WithRequireSignature(signature.WithKeySet(keys))
	for _, tt := range []struct {
		name     string
		key      *signature.SigningKey // nil: unsigned
		unserved bool                  // the card also declares a gRPC interface nobody serves
		opts     []guard.Option
		publish  bool
		removed  int
	}{
		{name: "unsigned, strict", opts: []guard.Option{require}},
		{name: "unsigned, normalize", opts: []guard.Option{require, guard.WithNormalize()}},
		{name: "untrusted key, strict", key: other, opts: []guard.Option{require}},
		{name: "untrusted key, normalize and re-sign", key: other, unserved: true,
			opts: []guard.Option{require, guard.WithNormalize(), guard.WithCardSigning(trusted, "")}},
		{name: "trusted key, strict", key: trusted, opts: []guard.Option{require}, publish: true},
		{name: "trusted key, normalize and re-sign", key: trusted, unserved: true,
			opts: []guard.Option{require, guard.WithNormalize(), guard.WithCardSigning(trusted, "")}, publish: true, removed: 1},
		{name: "unsigned, no signature required", publish: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC),
				lab.WithCard(func(a *lab.Agent) any {
					decls := []lab.Decl{{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1}}
					if tt.unserved {
						decls = append(decls, lab.Decl{URL: "127.0.0.1:1", Binding: lab.GRPC, Version: card.V1})
					}
					doc, _ := json.Marshal(lab.V1Card("signed", decls...))
					if tt.key == nil {
						return json.RawMessage(doc)
					}
					out, err := signature.Sign(doc, tt.key)
					if err != nil {
						t.Fatal(err)
					}
					return json.RawMessage(out)
				}),
				lab.WithHTTPMiddleware(func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.URL.Path != card.WellKnownPath {
							calls.Add(1)
						}
						h.ServeHTTP(w, r)
					})
				}))
			g := startGuard(t, a.BaseURL, tt.opts...)
			s := g.State()
			got := get(t, cardOf(g))
			if s.Published != tt.publish || (got.status == http.StatusOK) != tt.publish {
				t.Fatalf("published %v (card %d), want %v; reason %q", s.Published, got.status, tt.publish, s.Reason)
			}
			if !tt.publish {
				if calls.Load() != 0 || len(s.Results) != 0 {
					t.Errorf("%d requests reached the agent, %d interfaces probed; want none before the signature verifies", calls.Load(), len(s.Results))
				}
				if !strings.Contains(s.Reason, signature.ErrNotVerified.Error()) {
					t.Errorf("reason %q does not say the signature was refused", s.Reason)
				}
				if r := get(t, g.URL()+"/readyz"); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "signature") {
					t.Errorf("/readyz = %d %q, want 503 naming the signature", r.status, r.body)
				}
				return
			}
			if calls.Load() == 0 {
				t.Error("the published card's interfaces were not probed")
			}
			if tt.removed > 0 {
				if s.Normalized == nil || len(s.Normalized.Removed) != tt.removed || s.Resigned == "" {
					t.Fatalf("normalized %+v resigned %q, want %d removed and re-signed", s.Normalized, s.Resigned, tt.removed)
				}
				c, err := card.Parse([]byte(got.body))
				if err != nil {
					t.Fatal(err)
				}
				v, err := signature.VerifySignatures(t.Context(), c, signature.WithKeySet(keys))
				if err != nil {
					t.Fatal(err)
				}
				if err := v.Require(); err != nil {
					t.Errorf("the re-signed card does not verify: %v", err)
				}
			}
		})
	}
}
