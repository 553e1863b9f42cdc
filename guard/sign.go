package guard

import (
	"fmt"

	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/signature"
)

// HeaderResigned says the published card was re-signed by the guard (WithCardSigning)
// after the normalizer rewrote it; its value is the signature's key ID.
const HeaderResigned = "A2abind-Card-Resigned"

// signing is what WithCardSigning configures; New checks it into a signature.CardSigner
// (the one signing configuration of serve and guard).
type signing struct {
	key    *signature.SigningKey
	jku    string
	signer *signature.CardSigner
}

// WithCardSigning re-signs every card the normalizer rewrote with key (signature.Sign: A2A
// 1.0 §8.4, the spec canonical form), as the registry that rewrote it; a card that
// needed no change keeps the upstream's own signatures. A non-empty jku (an https URL)
// is written in the protected header and the guard serves the key's public JWKS at the
// jku's path, so that a verifier following the jku finds it. Only with WithNormalize.
func WithCardSigning(key *signature.SigningKey, jku string) Option {
	return func(o *options) { o.signing = &signing{key: key, jku: jku} }
}

// prepare checks the key and the jku and renders the JWKS, before anything listens.
func (s *signing) prepare() error {
	signer, err := signature.NewCardSigner(s.key, s.jku, server.PathHealthz, server.PathReadyz)
	if err != nil {
		return fmt.Errorf("guard: WithCardSigning: %w", err)
	}
	s.signer = signer
	return nil
}
