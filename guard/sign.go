package guard

import (
	"fmt"
	"net/http"

	"github.com/a2abind/a2abind/card"
)

// HeaderResigned says the published card was re-signed by the guard (WithCardSigning)
// after the normalizer rewrote it; its value is the signature's key ID.
const HeaderResigned = "A2abind-Card-Resigned"

// signing is what WithCardSigning configures.
type signing struct {
	key  *card.SigningKey
	jku  string
	path string // where the guard serves the JWKS (the jku's path); "" without a jku
	jwks []byte
}

// WithCardSigning re-signs every card the normalizer rewrote with key (card.Sign: A2A
// 1.0 §8.4, the spec canonical form), as the registry that rewrote it; a card that
// needed no change keeps the upstream's own signatures. A non-empty jku (an https URL)
// is written in the protected header and the guard serves the key's public JWKS at the
// jku's path, so that a verifier following the jku finds it. Only with WithNormalize.
func WithCardSigning(key *card.SigningKey, jku string) Option {
	return func(o *options) { o.signing = &signing{key: key, jku: jku} }
}

// prepare checks the key and the jku and renders the JWKS, before anything listens.
func (s *signing) prepare() error {
	if s.key == nil {
		return fmt.Errorf("guard: WithCardSigning: no key")
	}
	jwks, err := s.key.PublicJWKS()
	if err != nil {
		return fmt.Errorf("guard: WithCardSigning: %w", err)
	}
	s.jwks = jwks
	if s.jku == "" {
		return nil
	}
	u, err := card.ParseKeyURL(s.jku)
	if err != nil {
		return fmt.Errorf("guard: WithCardSigning: jku %w", err)
	}
	s.path = u.Path
	if s.path == "" || s.path == "/" || isCardPath(s.path) || s.path == PathHealthz || s.path == PathReadyz {
		return fmt.Errorf("guard: WithCardSigning: jku %q needs a path of its own for the JWKS, e.g. /.well-known/jwks.json", s.jku)
	}
	return nil
}

// sign signs a rewritten card document.
func (s *signing) sign(doc []byte) ([]byte, error) {
	opts := []card.SignOption{card.WithReplaceSignatures()}
	if s.jku != "" {
		opts = append(opts, card.WithSignJKU(s.jku))
	}
	return card.Sign(doc, s.key, opts...)
}

// serveJWKS publishes the signing key's public JWKS.
func (s *signing) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/jwk-set+json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_, _ = w.Write(s.jwks)
}
