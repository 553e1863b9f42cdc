package interop

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/signature"
)

// TestGuardResignedCardVerifiedByA2AJS: `guard --normalize --sign-key` re-signs the seed
// agent's card it rewrote, and a2a-js 1.3.0 verifies that signature with the JWKS the
// guard serves at the jku's path; the upstream's own (now stale) signature is gone.
func TestGuardResignedCardVerifiedByA2AJS(t *testing.T) {
	t.Parallel()
	key, err := signature.LoadSigningKey(filepath.Join("..", "testdata", "keys", "corpus-es256.private.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	g, agent := startGuardFor(t, func(front string, a *lab.Agent) any {
		c := lab.V1Card("signed-seed", lab.Decl{URL: front, Binding: lab.GRPC, Version: card.V1},
			lab.Decl{URL: front, Binding: lab.JSONRPC, Version: card.V1})
		c["signatures"] = []map[string]string{{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c3RhbGU"}}
		return c
	}, []lab.Option{lab.WithJSONRPC(card.V1, "/"), lab.WithGRPC(lab.GRPCNoService)},
		guard.WithNormalize(), guard.WithCardSigning(key, "https://agent.example.com/.well-known/jwks.json"))
	status, doc := httpGet(t, g.URL()+card.WellKnownPath)
	if status != 200 || g.State().Resigned == "" {
		t.Fatalf("card = %d, re-signed %q; want 200 and re-signed", status, g.State().Resigned)
	}
	jwks := g.URL() + "/.well-known/jwks.json"
	res := jsSign(t, []map[string]any{
		{"mode": "verify", "card": json.RawMessage(doc), "jwksUrl": jwks},
		{"mode": "verify", "card": json.RawMessage(agent.CardJSON), "jwksUrl": jwks}, // the upstream's stale signature
	})
	if ok, _ := res[0]["ok"].(bool); !ok {
		t.Errorf("a2a-js verify of the guard's re-signed card: %v\n%s", res[0]["error"], doc)
	}
	if ok, _ := res[1]["ok"].(bool); ok {
		t.Error("a2a-js verified the upstream card's stale signature: the check cannot fail")
	}
}
