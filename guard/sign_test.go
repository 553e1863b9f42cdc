package guard_test

import (
	"net/http"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/signature"
)

// TestNormalizeResignsWithTheOperatorsKey: with WithCardSigning the card the normalizer
// rewrote is signed again, as the registry that rewrote it: the upstream's signature is
// dropped (header and log), the guard's verifies against the JWKS it serves at the jku's
// path, and a card that needed no change keeps the upstream's bytes.
func TestNormalizeResignsWithTheOperatorsKey(t *testing.T) {
	t.Parallel()
	key, err := signature.GenerateSigningKey(signature.KeyEd25519, 0)
	if err != nil {
		t.Fatal(err)
	}
	const jku = "https://agent.example.com/.well-known/jwks.json"
	a := labtest.Start(t, lab.WithJSONRPC(card.V1, "/"), lab.WithGRPC(lab.GRPCNoService), lab.WithCard(func(a *lab.Agent) any {
		c := lab.V1Card("signed-seed", lab.Decl{URL: a.BaseURL, Binding: lab.GRPC, Version: card.V1},
			lab.Decl{URL: a.BaseURL, Binding: lab.JSONRPC, Version: card.V1})
		c["signatures"] = []map[string]string{{"protected": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0", "signature": "c2lnbmF0dXJl"}}
		return c
	}))
	if _, err := guard.New(a.BaseURL, guard.WithCardSigning(key, jku)); err == nil {
		t.Error("WithCardSigning without WithNormalize was accepted")
	}
	g := startGuard(t, a.BaseURL, guard.WithNormalize(), guard.WithCardSigning(key, jku))
	got := get(t, cardOf(g))
	if got.status != http.StatusOK || got.header.Get(guard.HeaderResigned) != key.KeyID || got.header.Get(guard.HeaderSignaturesDropped) != "1" {
		t.Fatalf("card = %d, %s %q, %s %q; want 200, re-signed with %q, 1 dropped", got.status,
			guard.HeaderResigned, got.header.Get(guard.HeaderResigned), guard.HeaderSignaturesDropped,
			got.header.Get(guard.HeaderSignaturesDropped), key.KeyID)
	}
	jwks := get(t, g.URL()+"/.well-known/jwks.json")
	ks, err := signature.ParseKeySet([]byte(jwks.body), "guard")
	if err != nil {
		t.Fatalf("JWKS at the jku's path: %d %v", jwks.status, err)
	}
	c, err := card.Parse([]byte(got.body))
	if err != nil {
		t.Fatal(err)
	}
	v, err := signature.VerifySignatures(t.Context(), c, signature.WithKeySet(ks))
	if err != nil || !v.Verified() || len(v.Signatures) != 1 {
		t.Errorf("verification of the re-signed card = %+v, %v; want its one signature valid", v, err)
	}

	healthy := labtest.Start(t, lab.Healthy()...)
	h := startGuard(t, healthy.BaseURL, guard.WithNormalize(), guard.WithCardSigning(key, ""))
	if r := get(t, cardOf(h)); r.body != string(healthy.CardJSON) || r.header.Get(guard.HeaderResigned) != "" {
		t.Errorf("a consistent card was changed or re-signed: %s", r.body)
	}
}
