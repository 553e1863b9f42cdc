package signature

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// CardSigner is how an endpoint signs the card it publishes and serves the key's JWKS:
// the one signing configuration of serve (--sign-key) and guard (--normalize
// --sign-key). Build it with NewCardSigner.
type CardSigner struct {
	// Key signs (Sign: A2A 1.0 §8.4, the spec canonical form).
	Key *SigningKey
	// JKU is the https URL of the key's JWKS written in the protected header; "" for none.
	JKU string

	path string
	jwks []byte
}

// NewCardSigner checks key and jku and renders the key's public JWKS. A non-empty jku
// must be an https URL (ParseKeyURL) with a path of its own, where the endpoint serves
// the JWKS: not the root, not a card document's path, and none of reserved (the
// endpoint's other paths).
func NewCardSigner(key *SigningKey, jku string, reserved ...string) (*CardSigner, error) {
	if key == nil {
		return nil, errors.New("no key")
	}
	jwks, err := key.PublicJWKS()
	if err != nil {
		return nil, err
	}
	s := &CardSigner{Key: key, JKU: jku, jwks: jwks}
	if jku == "" {
		return s, nil
	}
	u, err := addr.ParseKeyURL(jku)
	if err != nil {
		return nil, fmt.Errorf("jku %w", err)
	}
	s.path = u.Path
	own := s.path != "" && s.path != "/"
	low := strings.ToLower(s.path)
	for _, p := range append([]string{card.WellKnownPath, card.LegacyWellKnownPath}, reserved...) {
		own = own && !strings.HasSuffix(low, strings.ToLower(p))
	}
	if !own {
		return nil, fmt.Errorf("jku %q needs a path of its own for the JWKS, e.g. /.well-known/jwks.json", jku)
	}
	return s, nil
}

// Sign signs a card document, replacing the signatures it carries.
func (s *CardSigner) Sign(doc []byte) ([]byte, error) {
	opts := []SignOption{WithReplaceSignatures()}
	if s.JKU != "" {
		opts = append(opts, WithSignJKU(s.JKU))
	}
	return Sign(doc, s.Key, opts...)
}

// JWKSPath is where the endpoint serves the JWKS (the jku's path); "" without a jku.
func (s *CardSigner) JWKSPath() string { return s.path }

// ServeJWKS answers a request for the key's public JWKS: GET and HEAD get it (CORS for
// any origin: it holds public keys only), any other method 405.
func (s *CardSigner) ServeJWKS(w http.ResponseWriter, r *http.Request, cacheControl string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/jwk-set+json")
	h.Set("Cache-Control", cacheControl)
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Content-Length", fmt.Sprint(len(s.jwks)))
	if r.Method == http.MethodGet {
		_, _ = w.Write(s.jwks)
	}
}
