package server

import (
	"fmt"
	"net/http"

	"github.com/a2abind/a2abind/signature"
)

// signing is what WithCardSigning configures: the key and jku, checked once into a
// signature.CardSigner (the one signing configuration of serve and guard).
type signing struct {
	key *signature.SigningKey
	jku string

	prepared bool
	signer   *signature.CardSigner
	err      error
}

// WithCardSigning signs the published card with key (A2A 1.0 §8.4, the spec canonical
// form) after the invariant check passed. A non-empty jku (an https URL) is written in
// the protected header, and the server publishes the key's public JWKS at the jku's path
// on its HTTP listener, so that a verifier that follows the jku finds the key there
// (behind a TLS-terminating front end that serves the jku's host).
func WithCardSigning(key *signature.SigningKey, jku string) Option {
	return func(o *options) { o.signing = &signing{key: key, jku: jku} }
}

// prepare checks the key and the jku and renders the JWKS, once, before anything listens.
func (s *signing) prepare() error {
	if !s.prepared {
		s.prepared = true
		if s.signer, s.err = signature.NewCardSigner(s.key, s.jku, PathHealthz, PathReadyz); s.err != nil {
			s.err = errorf("WithCardSigning: %v", s.err)
		}
	}
	return s.err
}

// signCard returns raw signed, or raw unchanged without WithCardSigning.
func (srv *Server) signCard(raw []byte) ([]byte, error) {
	s := srv.o.signing
	if s == nil {
		return raw, nil
	}
	if err := s.prepare(); err != nil {
		return nil, err
	}
	signed, err := s.signer.Sign(raw)
	if err != nil {
		return nil, fmt.Errorf("server: signing the card: %w", err)
	}
	return signed, nil
}

// jwksParts serves the signing key's JWKS at the jku's path, when there is one.
func (srv *Server) jwksParts() []part {
	s := srv.o.signing
	if s == nil || s.prepare() != nil || s.signer.JWKSPath() == "" {
		return nil
	}
	return []part{{s.signer.JWKSPath(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.signer.ServeJWKS(w, r, srv.cacheCtrl)
	})}}
}
