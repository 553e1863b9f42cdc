package signature_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/signature"
)

// TestVerificationRequire: Require, the one refusal rule of every --require-signature,
// accepts exactly a card one of whose signatures verifies and covers what is dialled,
// and says per signature why it refuses the others.
func TestVerificationRequire(t *testing.T) {
	t.Parallel()
	signer, stranger := newKey(t, "ES256"), newKey(t, "EdDSA")
	v1 := []byte(`{"name": "E", "description": "E", "version": "1",
	  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
	  "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []}`)
	signed, err := signature.Sign(v1, signer)
	if err != nil {
		t.Fatal(err)
	}
	byStranger, err := signature.Sign(v1, stranger)
	if err != nil {
		t.Fatal(err)
	}
	tampered := []byte(strings.Replace(string(signed), "agent.example.com", "evil.example.net", 1))
	for _, tt := range []struct {
		name string
		doc  []byte
		want string // "" accepted; else a part of the refusal
	}{
		{"signed by a trusted key", signed, ""},
		{"unsigned", v1, "carries no signature"},
		{"signed by an untrusted key", byStranger, "signatures[0] unverified"},
		{"url rewritten after signing", tampered, "signatures[0] invalid"},
	} {
		c, err := card.Parse(tt.doc)
		if err != nil {
			t.Fatal(err)
		}
		v, err := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(keySet(t, signer)))
		if err != nil {
			t.Fatal(err)
		}
		err = v.Require()
		if tt.want == "" && err != nil || tt.want != "" && (!errors.Is(err, signature.ErrNotVerified) || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: Require() = %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := (*signature.Verification)(nil).Require(); !errors.Is(err, signature.ErrNotVerified) {
		t.Errorf("nil Verification: Require() = %v, want a refusal", err)
	}
}

// TestVerificationDialable: a signature over a v1.0 form of a union card (what a2a-js
// 1.3.0 signs) vouches for the supportedInterfaces it covers, never for the v0.3 url it
// leaves out; it is a warning, not an error; one that leaves the security schemes out, or
// a v0.3-only card's, vouches for nothing. a2abind's own signatures cover the whole card.
func TestVerificationDialable(t *testing.T) {
	t.Parallel()
	k := newKey(t, "ES256")
	union := `{"name": "U", "description": "U", "version": "1", "protocolVersion": "0.3.0",
	  "url": "https://old.example.net/a2a", "preferredTransport": "JSONRPC",
	  "supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
	  "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []}`
	v03Security := strings.Replace(union, `"capabilities"`, `"securitySchemes": {"b": {"type": "http", "scheme": "bearer"}}, "capabilities"`, 1)
	v03Only := strings.Replace(union, `"supportedInterfaces": [{"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],`, "", 1)
	overJS := func(doc string) []byte {
		p, err := signature.Canonicalize([]byte(doc), signature.FormJS)
		if err != nil {
			t.Fatal(err)
		}
		return signOver(t, doc, k2signer(t, k), k.KeyID, p)
	}
	for _, tt := range []struct {
		name string
		doc  []byte
		want []string // the sources dialled; nil: refused
	}{
		{"union signed over a2a-js's form", overJS(union), []string{"supportedInterfaces[0]"}},
		{"v0.3 security schemes left out", overJS(v03Security), nil},
		{"v0.3-only card", overJS(v03Only), nil},
		{"union signed by a2abind", sign(t, union, k), []string{"supportedInterfaces[0]", "url+preferredTransport"}},
	} {
		c, v := verify(t, tt.doc, signature.WithKeySet(keySet(t, k)))
		d, err := v.Dialable(c)
		var got []string
		if err == nil {
			for _, i := range d.Interfaces {
				got = append(got, i.Source.String())
			}
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") || (tt.want == nil) != errors.Is(err, signature.ErrNotVerified) {
			t.Errorf("%s: Dialable = %v, %v; want %v", tt.name, got, err, tt.want)
		}
		if len(c.Interfaces) != 2-strings.Count(tt.name, "v0.3-only") {
			t.Errorf("%s: Dialable changed the card: %v", tt.name, c.Interfaces)
		}
		f, partial := lintCodes(c)["signature-partial"]
		if partial != (tt.name != "union signed by a2abind") || partial && f.Severity != card.SeverityWarning {
			t.Errorf("%s: signature-partial = %v %+v", tt.name, partial, f)
		}
		if partial && tt.want != nil && !strings.Contains(f.Message, "It covers supportedInterfaces[0]") {
			t.Errorf("%s: message %q does not name what it covers", tt.name, f.Message)
		}
	}
}
