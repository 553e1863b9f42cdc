package interop

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/echo"
	"github.com/a2abind/a2abind/internal/servertest"
	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/signature"
)

// jsSign runs interop/js/signature.mjs on a batch of requests in one Node process.
func jsSign(t *testing.T, requests []map[string]any) []map[string]any {
	t.Helper()
	env := needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	in, err := json.Marshal(requests)
	if err != nil {
		t.Fatal(err)
	}
	cmd := env.command(ctx, "signature.mjs")
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node signature.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var out []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out) != len(requests) {
		t.Fatalf("signature.mjs answered %d results for %d requests (%v): %s", len(out), len(requests), err, stdout.String())
	}
	for i, r := range out {
		if e, ok := r["error"]; ok && requests[i]["mode"] != "verify" {
			t.Fatalf("signature.mjs %s: %v", requests[i]["mode"], e)
		}
	}
	return out
}

// signatureCards are the cards both SDKs sign and verify: one where every canonical form
// agrees, and one per case the issue names.
var signatureCards = map[string]string{
	"plain": `{"name": "Interop Agent", "description": "Signs", "version": "1.0.0",
	  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
	  "capabilities": {"streaming": true, "pushNotifications": false},
	  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
	  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]}`,
	// Empty non-REQUIRED fields: the implicit-presence ones (examples, securitySchemes,
	// tenant) are dropped by every form; the `optional` documentationUrl set to "" is kept
	// by the spec form and stripped by a2a-js.
	"empty-optional": `{"name": "Interop Agent", "description": "Signs", "version": "1.0.0",
	  "documentationUrl": "", "securitySchemes": {},
	  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": ""}],
	  "capabilities": {"extensions": []},
	  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
	  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"], "examples": []}]}`,
	"empty-required": `{"name": "Interop Agent", "description": "", "version": "1.0.0",
	  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
	  "capabilities": {},
	  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
	  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]}`,
	// Fields outside the v1.0 schema (a union card's v0.3 url, a vendor field): no form but
	// no-presence covers them.
	"unknown-fields": `{"name": "Interop Agent", "description": "Signs", "version": "1.0.0",
	  "protocolVersion": "0.3.0", "url": "https://agent.example.com/a2a/v03", "preferredTransport": "JSONRPC",
	  "x-vendor": {"tier": "gold", "limits": [1, 2.5]},
	  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
	  "capabilities": {"streaming": true},
	  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
	  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]}`,
	"non-ascii": `{"name": "Agent für Grüße 😀", "description": "Répond en français — \u2028 <b>&amp;</b>", "version": "1.0.0",
	  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
	  "capabilities": {"streaming": true},
	  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
	  "skills": [{"id": "grüß", "name": "Grüß", "description": "日本語のスキル", "tags": ["ü"]}]}`,
}

var bothAlgs = []string{"ES256", "RS256", "PS256", "EdDSA"}

// TestSignaturesInteropWithA2AJS: for every key type both support and every card above,
// a2abind verifies what a2a-js 1.3.0 signs and a2a-js verifies what a2abind signs, exactly
// when their canonical forms agree; when they do not, a2abind reports a2a-js's signature as
// the a2a-js variant. a2abind's a2a-js form is checked byte for byte against the SDK's
// canonicalizeAgentCard.
func TestSignaturesInteropWithA2AJS(t *testing.T) {
	var reqs []map[string]any
	for _, alg := range bothAlgs {
		reqs = append(reqs, map[string]any{"mode": "keygen", "alg": alg})
	}
	names := []string{"plain", "empty-optional", "empty-required", "unknown-fields", "non-ascii"}
	for _, n := range names {
		reqs = append(reqs, map[string]any{"mode": "canonical", "card": json.RawMessage(signatureCards[n])})
	}
	res := jsSign(t, reqs)
	keys := map[string]map[string]any{}
	for i, alg := range bothAlgs {
		keys[alg] = res[i]
	}
	agree := map[string]bool{}
	for i, n := range names {
		jsForm := res[len(bothAlgs)+i]["canonical"].(string)
		ours, err := signature.Canonicalize([]byte(signatureCards[n]), signature.FormJS)
		if err != nil {
			t.Fatal(err)
		}
		if string(ours) != jsForm {
			t.Errorf("%s: a2abind's a2a-js form differs from canonicalizeAgentCard:\n ours %s\n  sdk %s", n, ours, jsForm)
		}
		spec, _ := signature.Canonicalize([]byte(signatureCards[n]), signature.FormSpec)
		agree[n] = string(spec) == jsForm
	}
	// The cases the issue names must include both outcomes, or the test shows nothing.
	if !agree["plain"] || !agree["unknown-fields"] || !agree["non-ascii"] || agree["empty-optional"] || agree["empty-required"] {
		t.Fatalf("spec and a2a-js forms agree on %v; the cards no longer cover both outcomes", agree)
	}

	// Round 2: each side signs every card with every key; the other side verifies.
	type job struct{ alg, card string }
	var jobs []job
	reqs = nil
	ourSigned := map[job][]byte{}
	for _, alg := range bothAlgs {
		priv, _ := json.Marshal(keys[alg]["private"])
		pub := withKid(t, keys[alg]["public"], "js-"+alg, alg)
		ours := signingKey(t, priv, alg)
		for _, n := range names {
			j := job{alg, n}
			jobs = append(jobs, j)
			reqs = append(reqs, map[string]any{"mode": "sign", "card": json.RawMessage(signatureCards[n]),
				"jwk": keys[alg]["private"], "alg": alg, "kid": "js-" + alg})
			signed, err := signature.Sign([]byte(signatureCards[n]), ours, signature.WithSignKeyID("js-"+alg))
			if err != nil {
				t.Fatal(err)
			}
			ourSigned[j] = signed
			reqs = append(reqs, map[string]any{"mode": "verify", "card": json.RawMessage(signed),
				"jwks": map[string]any{"keys": []any{pub}}})
		}
	}
	res = jsSign(t, reqs)
	for i, j := range jobs {
		jsSigned, _ := json.Marshal(res[2*i])
		jsVerdict := res[2*i+1]
		t.Run(j.alg+"/"+j.card, func(t *testing.T) {
			// a2a-js verifies every card a2abind signs: when a2a-js's form differs (empty values
			// stripped, the union card's v0.3 url dropped) a2abind adds a signature over it,
			// and a2a-js accepts a card when any one signature verifies (issue 44).
			union := j.card == "unknown-fields"
			if ok, _ := jsVerdict["ok"].(bool); !ok {
				t.Errorf("a2a-js verify of a2abind's signature: ok=%v (%v), want true", ok, jsVerdict["error"])
			}
			// a2abind verifies a2a-js's signature: valid when the forms agree, else the a2a-js variant.
			pubSet, _ := json.Marshal(map[string]any{"keys": []any{withKid(t, keys[j.alg]["public"], "js-"+j.alg, j.alg)}})
			ks, err := signature.ParseKeySet(pubSet, "a2a-js JWKS")
			if err != nil {
				t.Fatal(err)
			}
			c, err := card.Parse(jsSigned)
			if err != nil {
				t.Fatal(err)
			}
			v, err := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(ks))
			if err != nil || len(v.Signatures) != 1 {
				t.Fatalf("VerifySignatures = %+v, %v", v, err)
			}
			got := v.Signatures[0]
			want, form := signature.StatusValid, signature.FormSpec
			if !agree[j.card] {
				want, form = signature.StatusVariant, signature.FormJS
			}
			if union { // a2a-js's signature leaves the v0.3 url out: partial, never valid
				want = signature.StatusPartial
			}
			if got.Status != want || got.Form != form || got.Algorithm != j.alg {
				t.Errorf("a2abind verify of a2a-js's signature = %+v, want %s (%s)", got, want, form)
			}
			// And a2abind verifies its own (over the card as written on the union card, the
			// TCK vectors' reading of §8.4.1, which covers the v0.3 url).
			c2, _ := card.Parse(ourSigned[j])
			v2, _ := signature.VerifySignatures(context.Background(), c2, signature.WithKeySet(ks))
			if own := v2.Signatures[0]; own.Status != signature.StatusValid || union != (own.Form == signature.FormNoPresence) {
				t.Errorf("a2abind verify of its own signature = %+v", own)
			}
			if j.card == "unknown-fields" && !strings.Contains(strings.Join(got.Unprotected, ","), "url") {
				t.Errorf("unprotected = %v, want the v0.3 url named", got.Unprotected)
			}
		})
	}
}

func withKid(t *testing.T, jwk any, kid, alg string) map[string]any {
	t.Helper()
	b, _ := json.Marshal(jwk)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["kid"], m["alg"], m["use"] = kid, alg, "sig"
	return m
}

func signingKey(t *testing.T, privateJWK []byte, alg string) *signature.SigningKey {
	t.Helper()
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(privateJWK); err != nil {
		t.Fatal(err)
	}
	k, err := signature.NewSigningKey(jwk.Key.(crypto.Signer), alg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestServeSignedCardVerifiedByA2AJS: the v1.0 card a2abind's server signs is verified
// by a2a-js 1.3.0 with the JWKS the server publishes at the jku's path, and a copy with
// its interface URL rewritten is not. A union card is signed over the card as written,
// which covers its v0.3 url and preferredTransport (issue 17), and over a2a-js's form,
// which a2a-js verifies (issue 44).
func TestServeSignedCardVerifiedByA2AJS(t *testing.T) {
	key, err := signature.LoadSigningKey(filepath.Join("..", "testdata", "keys", "corpus-es256.private.jwk"))
	if err != nil {
		t.Fatal(err)
	}
	var reqs []map[string]any
	var names []string
	for name, extra := range map[string][]server.Option{"v1.0": nil, "union": {server.WithV03()}} {
		srv := servertest.Start(t, echo.Executor{}, append([]server.Option{server.WithCardSigning(key, "https://agent.example.com/.well-known/jwks.json")}, extra...)...)
		doc := srv.CardJSON()
		jwksURL := srv.BaseURL() + "/.well-known/jwks.json"
		// rewrite supportedInterfaces[0].url, the address a2a-js 1.3.0 dials
		var m map[string]any
		_ = json.Unmarshal(doc, &m)
		first, _ := m["supportedInterfaces"].([]any)[0].(map[string]any)["url"].(string)
		rewritten := strings.Replace(string(doc), `"`+first+`"`, `"https://gateway.example.net/a2a"`, 1)
		if first == "" || rewritten == string(doc) {
			t.Fatalf("%s: no interface URL to rewrite in %s", name, doc)
		}
		reqs = append(reqs,
			map[string]any{"mode": "verify", "card": json.RawMessage(doc), "jwksUrl": jwksURL},
			map[string]any{"mode": "verify", "card": json.RawMessage(rewritten), "jwksUrl": jwksURL})
		names = append(names, name, name+" rewritten")
	}
	for i, r := range jsSign(t, reqs) {
		want := !strings.HasSuffix(names[i], "rewritten")
		if ok, _ := r["ok"].(bool); ok != want {
			t.Errorf("a2a-js verify of the %s card: ok=%v (%v), want %v", names[i], ok, r["error"], want)
		}
	}
}
