package server

import (
	"fmt"
	"net/http"

	"github.com/a2abind/a2abind/card"
)

// signing is what WithCardSigning configures.
type signing struct {
	key  *card.SigningKey
	jku  string
	path string // where the JWKS is served, the jku's path; "" when not served
	jwks []byte

	prepared bool
	err      error
}

// WithCardSigning signs the published card with key (A2A 1.0 §8.4, the spec canonical
// form) after the invariant check passed. A non-empty jku (an https URL) is written in
// the protected header, and the server publishes the key's public JWKS at the jku's path
// on its HTTP listener, so that a verifier that follows the jku finds the key there
// (behind a TLS-terminating front end that serves the jku's host).
func WithCardSigning(key *card.SigningKey, jku string) Option {
	return func(o *options) { o.signing = &signing{key: key, jku: jku} }
}

// prepare checks the key and the jku and renders the JWKS, once, before anything listens.
func (s *signing) prepare() error {
	if s.prepared {
		return s.err
	}
	s.prepared = true
	s.err = s.check()
	return s.err
}

func (s *signing) check() error {
	if s.key == nil {
		return errorf("WithCardSigning: no key")
	}
	jwks, err := s.key.PublicJWKS()
	if err != nil {
		return errorf("WithCardSigning: %v", err)
	}
	s.jwks = jwks
	if s.jku == "" {
		return nil
	}
	u, err := card.ParseKeyURL(s.jku)
	if err != nil {
		return errorf("WithCardSigning: jku %v", err)
	}
	s.path = u.Path
	if s.path == "" || s.path == "/" || s.path == card.WellKnownPath {
		return errorf("WithCardSigning: jku %q needs a path of its own for the JWKS, e.g. /.well-known/jwks.json", s.jku)
	}
	return nil
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
	opts := []card.SignOption{card.WithReplaceSignatures()}
	if s.jku != "" {
		opts = append(opts, card.WithSignJKU(s.jku))
	}
	signed, err := card.Sign(raw, s.key, opts...)
	if err != nil {
		return nil, fmt.Errorf("server: signing the card: %w", err)
	}
	return signed, nil
}

// jwksParts serves the signing key's JWKS at the jku's path, when there is one.
func (srv *Server) jwksParts() []part {
	s := srv.o.signing
	if s == nil || s.prepare() != nil || s.path == "" {
		return nil
	}
	return []part{{s.path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", srv.cacheCtrl)
		if r.Method == http.MethodGet {
			_, _ = w.Write(s.jwks)
		}
	})}}
}
