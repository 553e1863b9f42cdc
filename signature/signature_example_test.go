package signature_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/signature"
)

// Sign a card, verify it with the signer's JWKS, then see a rewrite break it. a2a-js
// strips the empty capabilities object the specification keeps, so Sign adds a second
// signature over a2a-js's form.
func ExampleSign() {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key, _ := signature.NewSigningKey(priv, "")
	jwks, _ := key.PublicJWKS()
	trusted, _ := signature.ParseKeySet(jwks, "signer JWKS")

	doc := []byte(`{"name": "Echo", "description": "Echoes", "version": "1.0.0",
	  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
	  "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
	  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]}`)
	signed, _ := signature.Sign(doc, key)

	for _, d := range [][]byte{signed, []byte(strings.Replace(string(signed), "agent.example.com", "gateway.example.net", 1))} {
		c, _ := card.Parse(d)
		v, _ := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(trusted))
		for _, s := range v.Signatures {
			fmt.Println(strings.TrimSpace(fmt.Sprint(s.Status, " ", s.Algorithm, " ", s.Form)))
		}
	}
	// Output:
	// valid EdDSA spec
	// variant EdDSA a2a-js
	// invalid EdDSA
	// invalid EdDSA
}
