package card_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
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
	signed, err := card.Sign(v1, signer)
	if err != nil {
		t.Fatal(err)
	}
	byStranger, err := card.Sign(v1, stranger)
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
		v, err := card.VerifySignatures(context.Background(), c, card.WithKeySet(keySet(t, signer)))
		if err != nil {
			t.Fatal(err)
		}
		err = v.Require()
		if tt.want == "" && err != nil || tt.want != "" && (!errors.Is(err, card.ErrNotVerified) || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: Require() = %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := (*card.Verification)(nil).Require(); !errors.Is(err, card.ErrNotVerified) {
		t.Errorf("nil Verification: Require() = %v, want a refusal", err)
	}
}
