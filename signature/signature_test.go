package signature_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/signature"
)

// healthyCard is a v1.0 card on which every canonical form agrees.
const healthyCard = `{
  "name": "Signed Agent", "description": "Answers", "version": "1.0.0",
  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": true},
  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "echo", "name": "Echo", "description": "Echoes", "tags": ["echo"]}]
}`

func newKey(t *testing.T, alg string) *signature.SigningKey {
	t.Helper()
	var (
		s   crypto.Signer
		err error
	)
	switch alg {
	case "ES256":
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "RS256", "PS256":
		s, err = rsa.GenerateKey(rand.Reader, 2048)
	case "EdDSA":
		_, s, err = ed25519.GenerateKey(rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	k, err := signature.NewSigningKey(s, alg)
	if err != nil {
		t.Fatal(err)
	}
	signers.Store(k, s)
	return k
}

func keySet(t *testing.T, keys ...*signature.SigningKey) *signature.KeySet {
	t.Helper()
	var all []json.RawMessage
	for _, k := range keys {
		b, err := k.PublicJWKS()
		if err != nil {
			t.Fatal(err)
		}
		var set struct{ Keys []json.RawMessage }
		if err := json.Unmarshal(b, &set); err != nil {
			t.Fatal(err)
		}
		all = append(all, set.Keys...)
	}
	b, _ := json.Marshal(map[string]any{"keys": all})
	ks, err := signature.ParseKeySet(b, "test JWKS")
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func sign(t *testing.T, doc string, k *signature.SigningKey, opts ...signature.SignOption) []byte {
	t.Helper()
	out, err := signature.Sign([]byte(doc), k, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func verify(t *testing.T, doc []byte, opts ...signature.VerifyOption) (*card.Card, *signature.Verification) {
	t.Helper()
	c, err := card.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := signature.VerifySignatures(context.Background(), c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, v
}

func onlyCheck(t *testing.T, v *signature.Verification) signature.SignatureCheck {
	t.Helper()
	if len(v.Signatures) != 1 {
		t.Fatalf("got %d signature results, want 1: %+v", len(v.Signatures), v.Signatures)
	}
	return v.Signatures[0]
}

func lintCodes(c *card.Card) map[string]card.Finding {
	out := map[string]card.Finding{}
	for _, f := range lint.Lint(c) {
		out[f.Code] = f
	}
	return out
}

// TestSignVerifyEveryAlgorithm signs with each key type and verifies over the spec form.
func TestSignVerifyEveryAlgorithm(t *testing.T) {
	for _, alg := range []string{"ES256", "RS256", "PS256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			k := newKey(t, alg)
			signed := sign(t, healthyCard, k)
			c, v := verify(t, signed, signature.WithKeySet(keySet(t, k)))
			got := onlyCheck(t, v)
			if got.Status != signature.StatusValid || got.Form != signature.FormSpec || got.Algorithm != alg || got.KeyID != k.KeyID {
				t.Fatalf("check = %+v, want valid spec %s kid %s", got, alg, k.KeyID)
			}
			f, ok := lintCodes(c)["signature-valid"]
			if !ok || !strings.Contains(f.Message, k.KeyID) || !strings.Contains(f.Message, alg) {
				t.Errorf("lint = %v, want signature-valid naming kid and alg", lint.Lint(c))
			}
			// The protected header is what §8.4.2 asks for.
			var sigs struct{ Signatures []struct{ Protected string } }
			_ = json.Unmarshal(signed, &sigs)
			hb, _ := base64.RawURLEncoding.DecodeString(sigs.Signatures[0].Protected)
			var h map[string]any
			_ = json.Unmarshal(hb, &h)
			if h["alg"] != alg || h["typ"] != "JOSE" || h["kid"] != k.KeyID {
				t.Errorf("protected header = %v", h)
			}
		})
	}
}

// TestVerifyTamperedCard: one changed byte of a covered field makes the signature invalid.
func TestVerifyTamperedCard(t *testing.T) {
	k := newKey(t, "ES256")
	signed := sign(t, healthyCard, k)
	tampered := strings.Replace(string(signed), "agent.example.com", "evil.example.com", 1)
	c, v := verify(t, []byte(tampered), signature.WithKeySet(keySet(t, k)))
	if got := onlyCheck(t, v); got.Status != signature.StatusInvalid || !strings.Contains(got.Reason, "does not verify") {
		t.Fatalf("check = %+v, want invalid", got)
	}
	if _, ok := lintCodes(c)["signature-invalid"]; !ok || !card.HasErrors(lint.Lint(c)) {
		t.Errorf("lint = %v, want a signature-invalid error", lint.Lint(c))
	}
}

// TestVerifyGatewayRewrite serves a signed card whose interface URL a gateway rewrote to
// its own host: the signature fails and the finding names the rewritten interface.
func TestVerifyGatewayRewrite(t *testing.T) {
	k := newKey(t, "ES256")
	signed := sign(t, strings.ReplaceAll(healthyCard, "https://agent.example.com", "http://127.0.0.1:1"), k)
	rewritten := strings.Replace(string(signed), "http://127.0.0.1:1/a2a", "http://gateway.example.com/a2a", 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(rewritten))
	}))
	defer srv.Close()
	c, err := card.Load(context.Background(), srv.URL+"/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(keySet(t, k)))
	if err != nil {
		t.Fatal(err)
	}
	if got := onlyCheck(t, v); got.Status != signature.StatusInvalid {
		t.Fatalf("check = %+v, want invalid", got)
	}
	f, ok := lintCodes(c)["signature-invalid"]
	if !ok || !strings.Contains(f.Message, "gateway may have rewritten") || !strings.Contains(f.Message, "supportedInterfaces[0] (http://gateway.example.com/a2a)") {
		t.Fatalf("finding = %+v, want the rewrite hint naming supportedInterfaces[0]", f)
	}
	// The unmodified card at the same place verifies and gets no hint.
	good, _ := verify(t, signed, signature.WithKeySet(keySet(t, k)))
	if _, bad := lintCodes(good)["signature-invalid"]; bad {
		t.Errorf("untouched card: %v", lint.Lint(good))
	}
}

// TestVerifyHeaderRules covers what no key can mend and keys that must not be used.
func TestVerifyHeaderRules(t *testing.T) {
	k := newKey(t, "ES256")
	ks := keySet(t, k)
	payload, err := signature.Canonicalize([]byte(healthyCard), signature.FormSpec)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	withSig := func(header map[string]any, sig string) []byte {
		hb, _ := json.Marshal(header)
		var doc map[string]any
		_ = json.Unmarshal([]byte(healthyCard), &doc)
		doc["signatures"] = []any{map[string]any{"protected": b64(hb), "signature": sig}}
		out, _ := json.Marshal(doc)
		return out
	}
	// A real ES256 signature under a header we choose, for the key-rule cases.
	signUnder := func(key crypto.Signer, header map[string]any) []byte {
		return signWithHeader(t, healthyCard, key, header, payload)
	}
	attacker, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	attackerJWK, _ := json.Marshal(jose.JSONWebKey{Key: attacker.Public()})
	var embedded map[string]any
	_ = json.Unmarshal(attackerJWK, &embedded)

	expired := func() *signature.KeySet {
		b, _ := k.PublicJWKS()
		var set map[string][]map[string]any
		_ = json.Unmarshal(b, &set)
		set["keys"][0]["exp"] = time.Now().Add(-time.Hour).Unix()
		out, _ := json.Marshal(set)
		ks, err := signature.ParseKeySet(out, "expired JWKS")
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}()
	encOnly := func() *signature.KeySet {
		b, _ := k.PublicJWKS()
		out := strings.Replace(string(b), `"use":"sig"`, `"use":"enc"`, 1)
		ks, err := signature.ParseKeySet([]byte(out), "enc JWKS")
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}()

	cases := []struct {
		name   string
		doc    []byte
		keys   *signature.KeySet
		status signature.SignatureStatus
		reason string
	}{
		{"alg none", withSig(map[string]any{"alg": "none", "kid": k.KeyID, "typ": "JOSE"}, "AA"), ks, signature.StatusInvalid, `alg "none"`},
		{"alg HS256", withSig(map[string]any{"alg": "HS256", "kid": k.KeyID, "typ": "JOSE"}, "AA"), ks, signature.StatusInvalid, "not accepted"},
		{"no kid", withSig(map[string]any{"alg": "ES256", "typ": "JOSE"}, "AA"), ks, signature.StatusInvalid, "no kid"},
		{"no typ", withSig(map[string]any{"alg": "ES256", "kid": k.KeyID}, "AA"), ks, signature.StatusInvalid, "no typ"},
		{"not base64url", []byte(strings.Replace(healthyCard, `"version"`, `"signatures": [{"protected": "e30=", "signature": "AA"}], "version"`, 1)), ks, signature.StatusInvalid, "not base64url"},
		{"header not an object", withSig(nil, "AA"), ks, signature.StatusInvalid, "no alg"},
		{"b64 false", signUnder(k2signer(t, k), map[string]any{"kid": k.KeyID, "typ": "JOSE", "b64": false}), ks, signature.StatusInvalid, "crit/b64"},
		{"header-only key", signUnder(attacker, map[string]any{"kid": "attacker", "typ": "JOSE", "jwk": embedded}), ks, signature.StatusUnverified, "never trusts a key that comes with the signature"},
		{"unknown kid", signUnder(attacker, map[string]any{"kid": "other", "typ": "JOSE"}), ks, signature.StatusUnverified, `no key with kid "other"`},
		{"no keys at all", signUnder(attacker, map[string]any{"kid": "other", "typ": "JOSE"}), nil, signature.StatusUnverified, "pass --jwks"},
		{"wrong key same kid", signUnder(attacker, map[string]any{"kid": k.KeyID, "typ": "JOSE"}), ks, signature.StatusInvalid, "does not verify"},
		{"expired key", signUnder(k2signer(t, k), map[string]any{"kid": k.KeyID, "typ": "JOSE"}), expired, signature.StatusInvalid, "expired"},
		{"key for encryption", signUnder(k2signer(t, k), map[string]any{"kid": k.KeyID, "typ": "JOSE"}), encOnly, signature.StatusInvalid, `use "enc"`},
		{"good", signUnder(k2signer(t, k), map[string]any{"kid": k.KeyID, "typ": "JOSE"}), ks, signature.StatusValid, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, v := verify(t, tc.doc, signature.WithKeySet(tc.keys))
			got := onlyCheck(t, v)
			if got.Status != tc.status || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("check = %+v, want %s with reason containing %q", got, tc.status, tc.reason)
			}
		})
	}
}

// k2signer returns the private key behind a SigningKey made by newKey (a SigningKey keeps
// its signer private).
func k2signer(t *testing.T, k *signature.SigningKey) crypto.Signer {
	t.Helper()
	s, ok := signers.Load(k)
	if !ok {
		t.Fatal("not a key from newKey")
	}
	return s.(crypto.Signer)
}

// signers maps the keys newKey made to their signers; parallel tests share it.
var signers sync.Map

// TestLintUnsignedAndRequire: unsigned is said only once signatures were checked, and
// --require-signature makes it (and unverified) an error.
func TestLintUnsignedAndRequire(t *testing.T) {
	c, err := card.Parse([]byte(healthyCard))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lintCodes(c)["unsigned"]; ok {
		t.Error("unsigned reported on a card whose signatures were not checked")
	}
	if _, err := signature.VerifySignatures(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	f, ok := lintCodes(c)["unsigned"]
	if !ok || f.Severity != card.SeverityInfo {
		t.Fatalf("lint = %v, want unsigned info", lint.Lint(c))
	}
	if !card.HasErrors(lint.RequireSignature(c, lint.Lint(c))) {
		t.Error("RequireSignature left an unsigned card without error")
	}
	// A signed card with no key: unverified warning, an error when a signature is required.
	signed, _ := verify(t, sign(t, healthyCard, newKey(t, "EdDSA")))
	if _, ok := lintCodes(signed)["signature-unverified"]; !ok || card.HasErrors(lint.Lint(signed)) {
		t.Fatalf("lint = %v, want signature-unverified warning only", lint.Lint(signed))
	}
	if !card.HasErrors(lint.RequireSignature(signed, lint.Lint(signed))) {
		t.Error("RequireSignature left an unverified card without error")
	}
	// A verified card passes RequireSignature.
	k := newKey(t, "ES256")
	ok2, _ := verify(t, sign(t, healthyCard, k), signature.WithKeySet(keySet(t, k)))
	if card.HasErrors(lint.RequireSignature(ok2, lint.Lint(ok2))) {
		t.Errorf("RequireSignature failed a verified card: %v", lint.Lint(ok2))
	}
}

// TestVerifyVariants: a signature made over an SDK's canonical form fails under the spec
// form and passes under its variant, on a card where the forms differ.
func TestVerifyVariants(t *testing.T) {
	es, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k, err := signature.NewSigningKey(es, "")
	if err != nil {
		t.Fatal(err)
	}
	ks := keySet(t, k)
	cases := []struct {
		form signature.Form
		doc  string // a card on which this form differs from the spec form
		also string // what the finding must say
	}{
		// a2a-js strips the empty REQUIRED description the spec keeps.
		{signature.FormJS, strings.Replace(healthyCard, `"description": "Answers"`, `"description": ""`, 1), "a2a-js"},
		// a2a-python escapes non-ASCII (ensure_ascii).
		{signature.FormPython, strings.Replace(healthyCard, "Signed Agent", "Agent für Grüße", 1), "a2a-python"},
		// (no-presence, the card as written, is a reading of §8.4.1 the TCK's vectors use:
		// valid, not a variant; TestTCKSigningVectors)
	}
	for _, tc := range cases {
		t.Run(string(tc.form), func(t *testing.T) {
			spec, _ := signature.Canonicalize([]byte(tc.doc), signature.FormSpec)
			variant, err := signature.Canonicalize([]byte(tc.doc), tc.form)
			if err != nil {
				t.Fatal(err)
			}
			if string(spec) == string(variant) {
				t.Fatalf("the %s form equals the spec form on this card; the test shows nothing", tc.form)
			}
			doc := signOver(t, tc.doc, es, k.KeyID, variant)
			c, v := verify(t, doc, signature.WithKeySet(ks))
			got := onlyCheck(t, v)
			if got.Status != signature.StatusVariant || got.Form != tc.form {
				t.Fatalf("check = %+v, want variant %s", got, tc.form)
			}
			f, ok := lintCodes(c)["signature-variant"]
			if !ok || !strings.Contains(f.Message, tc.also) {
				t.Errorf("lint = %v, want signature-variant naming %s", lint.Lint(c), tc.also)
			}
			// The same signature over the spec form fails: the spec form alone says invalid.
			if err := detachedVerify(doc, spec, k); err == nil {
				t.Error("the SDK's signature verifies over the spec form too")
			}
		})
	}
}

// signOver signs payload as an SDK would (typ JOSE, kid) and attaches the signature to doc.
func signOver(t *testing.T, doc string, key crypto.Signer, kid string, payload []byte) []byte {
	t.Helper()
	return signWithHeader(t, doc, key, map[string]any{"typ": "JOSE", "kid": kid}, payload)
}

// signWithHeader signs payload with ES256 under the protected header given and attaches
// the detached signature to doc as its only one.
func signWithHeader(t *testing.T, doc string, key crypto.Signer, header map[string]any, payload []byte) []byte {
	t.Helper()
	opts := &jose.SignerOptions{}
	for k, v := range header {
		opts = opts.WithHeader(jose.HeaderKey(k), v)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
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

func detachedVerify(doc, payload []byte, k *signature.SigningKey) error {
	var m struct {
		Signatures []struct{ Protected, Signature string }
	}
	_ = json.Unmarshal(doc, &m)
	jws, err := jose.ParseDetached(m.Signatures[0].Protected+".."+m.Signatures[0].Signature, payload, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return err
	}
	b, _ := k.PublicJWKS()
	var set jose.JSONWebKeySet
	_ = json.Unmarshal(b, &set)
	return jws.DetachedVerify(payload, set.Keys[0])
}

// TestVerifyJKU follows a jku only over HTTPS, to an allowed origin, within bounds, and
// never through a redirect to another origin.
func TestVerifyJKU(t *testing.T) {
	k := newKey(t, "ES256")
	jwks, err := k.PublicJWKS()
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := newKey(t, "ES256").PublicJWKS()
	if err != nil {
		t.Fatal(err)
	}
	keys := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/jwks.json":
			_, _ = w.Write(jwks)
		case "/rotated.json":
			_, _ = w.Write(rotated)
		case "/huge":
			_, _ = w.Write([]byte(`{"keys":[` + strings.Repeat(" ", signature.MaxJWKSBytes) + `]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer keys.Close()
	elsewhere := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(jwks) // same keys, but reached only through another origin's redirect
	}))
	defer elsewhere.Close()
	redirector := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/jwks.json", http.StatusFound)
	}))
	defer redirector.Close()

	cases := []struct {
		name    string
		jku     string
		allowed []string
		status  signature.SignatureStatus
		reason  string
	}{
		{"allowed origin", keys.URL + "/jwks.json", []string{keys.URL}, signature.StatusValid, ""},
		{"origin not allowed", keys.URL + "/jwks.json", nil, signature.StatusUnverified, "not one you allowed"},
		{"plain http", strings.Replace(keys.URL, "https://", "http://", 1) + "/jwks.json", []string{keys.URL}, signature.StatusUnverified, "not https"},
		{"redirect to another origin", redirector.URL + "/jwks.json", []string{redirector.URL}, signature.StatusUnverified, "leaves the jku origin"},
		{"over the size bound", keys.URL + "/huge", []string{keys.URL}, signature.StatusUnverified, "limit"},
		{"not served", keys.URL + "/missing", []string{keys.URL}, signature.StatusUnverified, "HTTP 404"},
		{"kid gone from the JWKS (revoked)", keys.URL + "/rotated.json", []string{keys.URL}, signature.StatusUnverified, "revoked"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := signature.Sign([]byte(healthyCard), k, signature.WithSignJKU(strings.Replace(tc.jku, "http://", "https://", 1)))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(tc.jku, "http://") { // Sign refuses http jku; write it as an attacker would
				doc = resignHeader(t, doc, k, tc.jku)
			}
			_, v := verify(t, doc, signature.WithJKUOrigins(tc.allowed...), signature.WithJKUClient(keys.Client()))
			got := onlyCheck(t, v)
			if got.Status != tc.status || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("check = %+v, want %s with reason containing %q", got, tc.status, tc.reason)
			}
		})
	}
	if _, err := signature.VerifySignatures(context.Background(), &card.Card{}, signature.WithJKUOrigins("http://keys.example.com")); err == nil {
		t.Error("an http:// jku origin was accepted")
	}
	// A JWKS URL the user names is fetched under the same rules.
	if ks, err := signature.FetchKeySet(context.Background(), keys.URL+"/jwks.json", keys.Client(), 0); err != nil || ks.Len() != 1 {
		t.Errorf("FetchKeySet = %v, %v", ks, err)
	}
	for _, u := range []string{strings.Replace(keys.URL, "https", "http", 1) + "/jwks.json", redirector.URL + "/jwks.json", keys.URL + "/huge"} {
		if _, err := signature.FetchKeySet(context.Background(), u, keys.Client(), 0); !errors.Is(err, signature.ErrKeySet) {
			t.Errorf("FetchKeySet(%s) = %v, want ErrKeySet", u, err)
		}
	}
}

// resignHeader signs doc's spec form under a header with the given (non-https) jku.
func resignHeader(t *testing.T, doc []byte, k *signature.SigningKey, jku string) []byte {
	t.Helper()
	payload, err := signature.Canonicalize(doc, signature.FormSpec)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k2signer(t, k)},
		(&jose.SignerOptions{}).WithType("JOSE").WithHeader("kid", k.KeyID).WithHeader("jku", jku))
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
	_ = json.Unmarshal(doc, &m)
	m["signatures"] = []any{map[string]any{"protected": p, "signature": sig}}
	out, _ := json.Marshal(m)
	return out
}

// TestVerifyCertificateValidity: a JWK whose x5c leaf certificate has expired (or is not
// yet valid) cannot verify; the same key with a current certificate can.
func TestVerifyCertificateValidity(t *testing.T) {
	k := newKey(t, "ES256")
	signed := sign(t, healthyCard, k)
	priv := k2signer(t, k)
	now := time.Now()
	for _, tc := range []struct {
		name      string
		from, to  time.Time
		status    signature.SignatureStatus
		reasonSub string
	}{
		{"current", now.Add(-time.Hour), now.Add(time.Hour), signature.StatusValid, ""},
		{"expired", now.Add(-48 * time.Hour), now.Add(-time.Hour), signature.StatusInvalid, "expired"},
		{"not yet valid", now.Add(time.Hour), now.Add(48 * time.Hour), signature.StatusInvalid, "not valid before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "signer"}, NotBefore: tc.from, NotAfter: tc.to}
			der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, priv.Public(), priv)
			if err != nil {
				t.Fatal(err)
			}
			cert, _ := x509.ParseCertificate(der)
			jwk, err := json.Marshal(jose.JSONWebKey{Key: priv.Public(), KeyID: k.KeyID, Algorithm: "ES256", Use: "sig", Certificates: []*x509.Certificate{cert}})
			if err != nil {
				t.Fatal(err)
			}
			ks, err := signature.ParseKeySet([]byte(`{"keys":[`+string(jwk)+`]}`), "x5c JWKS")
			if err != nil {
				t.Fatal(err)
			}
			_, v := verify(t, signed, signature.WithKeySet(ks))
			if got := onlyCheck(t, v); got.Status != tc.status || !strings.Contains(got.Reason, tc.reasonSub) {
				t.Errorf("check = %+v, want %s (%q)", got, tc.status, tc.reasonSub)
			}
		})
	}
}
