package signature

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/go-jose/go-jose/v4"
)

// ErrSigningKey is wrapped by every error about a key that cannot sign cards.
var ErrSigningKey = errors.New("unusable signing key")

// SigningKey is a private key a2abind signs cards with, its JWS algorithm and key ID.
type SigningKey struct {
	signer crypto.Signer
	// Algorithm is the JWS alg: ES256 (P-256), RS256 or PS256 (RSA), EdDSA (Ed25519).
	Algorithm string
	// KeyID is the kid written in the protected header; by default the key's RFC 7638
	// thumbprint.
	KeyID string
}

// LoadSigningKey reads a private key file: PEM (PKCS#8, SEC 1 EC or PKCS#1 RSA) or a
// private JWK. The algorithm follows from the key (RSA signs RS256).
func LoadSigningKey(path string) (*SigningKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSigningKey, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSigningKey, err)
	}
	if len(data) > MaxJWKSBytes {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrSigningKey, path, MaxJWKSBytes)
	}
	k, err := ParseSigningKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// ParseSigningKey reads a PEM private key or a private JWK (whose alg and kid, if set,
// are kept).
func ParseSigningKey(data []byte) (*SigningKey, error) {
	trimmed := bytes.TrimSpace(data)
	if bytes.HasPrefix(trimmed, []byte("{")) {
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(trimmed); err != nil {
			return nil, fmt.Errorf("%w: not a JWK: %v", ErrSigningKey, err)
		}
		s, ok := jwk.Key.(crypto.Signer)
		if !ok || jwk.IsPublic() {
			return nil, fmt.Errorf("%w: the JWK has no private part", ErrSigningKey)
		}
		k, err := NewSigningKey(s, jwk.Algorithm)
		if err != nil {
			return nil, err
		}
		if jwk.KeyID != "" {
			k.KeyID = jwk.KeyID
		}
		return k, nil
	}
	block, _ := pem.Decode(trimmed)
	if block == nil {
		return nil, fmt.Errorf("%w: neither PEM nor a JWK", ErrSigningKey)
	}
	var (
		key any
		err error
	)
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%w: PEM block %q is not a private key (want PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY)", ErrSigningKey, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSigningKey, err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: %T cannot sign", ErrSigningKey, key)
	}
	return NewSigningKey(s, "")
}

// NewSigningKey wraps a private key. alg "" picks the key's usual algorithm (RS256 for
// RSA); PS256 may be asked for an RSA key.
func NewSigningKey(s crypto.Signer, alg string) (*SigningKey, error) {
	def := ""
	switch k := s.(type) {
	case *rsa.PrivateKey:
		def = string(jose.RS256)
		if alg == "" {
			alg = def
		}
		if alg != string(jose.RS256) && alg != string(jose.PS256) {
			return nil, fmt.Errorf("%w: an RSA key signs RS256 or PS256, not %s", ErrSigningKey, alg)
		}
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%w: EC key on %s; a2abind signs ES256, which needs P-256", ErrSigningKey, k.Curve.Params().Name)
		}
		def = string(jose.ES256)
	case ed25519.PrivateKey:
		def = string(jose.EdDSA)
	default:
		return nil, fmt.Errorf("%w: %T is not an RSA, P-256 or Ed25519 key", ErrSigningKey, s)
	}
	if alg == "" {
		alg = def
	}
	if alg != def && def != string(jose.RS256) {
		return nil, fmt.Errorf("%w: this key signs %s, not %s", ErrSigningKey, def, alg)
	}
	if reason := keyFitsAlg(s.Public(), alg); reason != "" {
		return nil, fmt.Errorf("%w: %s", ErrSigningKey, reason)
	}
	jwk := jose.JSONWebKey{Key: s.Public()}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSigningKey, err)
	}
	return &SigningKey{signer: s, Algorithm: alg, KeyID: base64.RawURLEncoding.EncodeToString(tp)}, nil
}

// PublicJWKS returns the JWKS ({"keys": [...]}) holding the key's public part, with its
// kid, alg and use "sig": what a jku URL serves.
func (k *SigningKey) PublicJWKS() ([]byte, error) { return PublicJWKS(k) }

// SignOption configures Sign.
type SignOption func(*signOptions)

type signOptions struct {
	kid, jku string
	replace  bool
}

// WithSignKeyID writes kid instead of the key's own KeyID.
func WithSignKeyID(kid string) SignOption { return func(o *signOptions) { o.kid = kid } }

// WithSignJKU writes a jku (the https URL of the JWKS holding the public key).
func WithSignJKU(jku string) SignOption { return func(o *signOptions) { o.jku = jku } }

// WithReplaceSignatures drops the signatures the document already carries (after a
// rewrite they no longer verify) instead of adding to them.
func WithReplaceSignatures() SignOption { return func(o *signOptions) { o.replace = true } }

// Sign signs a card document per A2A 1.0 §8.4 (a detached JWS over each canonical form
// SignForms names; protected header alg, typ "JOSE", kid and optionally jku) and returns
// the document, indented, with the signatures added to `signatures`. Every other member
// keeps its order and its value as written.
func Sign(doc []byte, k *SigningKey, opts ...SignOption) ([]byte, error) {
	var o signOptions
	for _, opt := range opts {
		opt(&o)
	}
	if k == nil {
		return nil, fmt.Errorf("%w: no key", ErrSigningKey)
	}
	if o.kid == "" {
		o.kid = k.KeyID
	}
	if o.jku != "" {
		if _, err := addr.ParseKeyURL(o.jku); err != nil {
			return nil, fmt.Errorf("jku %w; give an https:// URL", err)
		}
	}
	obj, err := card.DecodeObject(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCanonical, err)
	}
	forms, _, err := SignForms(doc)
	if err != nil {
		return nil, err
	}
	so := (&jose.SignerOptions{}).WithType("JOSE").WithHeader(jose.HeaderKey("kid"), o.kid)
	if o.jku != "" {
		so = so.WithHeader(jose.HeaderKey("jku"), o.jku)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(k.Algorithm), Key: k.signer}, so)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSigningKey, err)
	}
	var sigs []json.RawMessage
	if v, ok := obj.Get("signatures"); ok && !o.replace {
		_ = json.Unmarshal(v, &sigs) // not a list: replaced
	}
	for _, form := range forms {
		payload, err := Canonicalize(doc, form)
		if err != nil {
			return nil, err
		}
		jws, err := signer.Sign(payload)
		if err != nil {
			return nil, fmt.Errorf("signing: %w", err)
		}
		compact, err := jws.DetachedCompactSerialize()
		if err != nil {
			return nil, fmt.Errorf("signing: %w", err)
		}
		protected, signature, _ := strings.Cut(compact, "..")
		entry, _ := json.Marshal(card.SignatureEntry{Protected: protected, Signature: signature})
		sigs = append(sigs, entry)
	}
	list, _ := json.Marshal(sigs)
	out, err := append(obj.Without("signatures", false), card.Member{Key: "signatures", Value: list}).Encode()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCanonical, err)
	}
	return out, nil
}

// SignForms lists the canonical forms Sign signs doc in, one signature each. First the
// one covering every member a2abind uses for connecting: the specification's (§8.4.1)
// when it does, else FormNoPresence, the card as written, as the A2A TCK's vectors sign
// a card carrying the v0.3 url; missed lists what the spec form would leave out. Then
// FormJS when a2a-js 1.3.0 canonicalises the card to other bytes and its form covers
// what a2a-js connects with: a2a-js accepts a card when any one of its signatures
// verifies, so the card verifies there too. On a union card that signature vouches for
// the supportedInterfaces a2a-js reads (it ignores the v0.3 members when they are
// there); a card without them carrying a v0.3 url gets none, since a2a-js's form drops
// the url a2a-js then dials.
func SignForms(doc []byte) (forms []Form, missed []string, err error) {
	if missed, err = Uncovered(doc, FormSpec); err != nil {
		return nil, nil, err
	}
	first := FormSpec
	if len(missed) > 0 {
		first = FormNoPresence
	}
	a, err := Canonicalize(doc, first)
	if err != nil {
		return nil, nil, err
	}
	if js, err := Canonicalize(doc, FormJS); err == nil && !bytes.Equal(a, js) && jsCovers(doc) {
		return []Form{first, FormJS}, missed, nil
	}
	return []Form{first}, missed, nil
}

// WithAlgorithm returns the key set to sign with alg (PS256 for an RSA key), same kid.
func (k *SigningKey) WithAlgorithm(alg string) (*SigningKey, error) {
	n, err := NewSigningKey(k.signer, alg)
	if err != nil {
		return nil, err
	}
	n.KeyID = k.KeyID
	return n, nil
}

// jsCovers reports whether a signature over FormJS covers everything a2a-js 1.3.0
// connects with: every supportedInterfaces entry and the security members when there
// are entries (a2a-js then ignores the v0.3 members), every member used to connect
// when there are none.
func jsCovers(doc []byte) bool {
	top, err := decodeTree(doc)
	if err != nil {
		return false
	}
	list, _ := top[card.FieldSupported].([]any)
	unc, err := Uncovered(doc, FormJS)
	if err != nil || len(list) == 0 {
		return err == nil && len(unc) == 0 // a2a-js reads a card without them as v0.3: its url
	}
	s := SignatureCheck{Status: StatusPartial, Uncovered: unc}
	for i := range list {
		if !s.Covers(card.Supported(i)) {
			return false
		}
	}
	return true
}
