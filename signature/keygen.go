package signature

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// Key types GenerateSigningKey makes.
const (
	// KeyEC is an EC P-256 key (signs ES256), the default.
	KeyEC = "ec"
	// KeyEd25519 is an Ed25519 key (signs EdDSA).
	KeyEd25519 = "ed25519"
	// KeyRSA is an RSA key (signs RS256), 3072 bits unless asked otherwise.
	KeyRSA = "rsa"
)

// RSA key sizes GenerateSigningKey makes: DefaultRSABits when none is asked for, else
// MinRSABits to MaxRSABits (a larger key takes minutes to hours to make, and signs no
// better).
const (
	DefaultRSABits = 3072
	MinRSABits     = 2048
	MaxRSABits     = 8192
)

// GenerateSigningKey makes a new private key of kind (KeyEC, KeyEd25519, KeyRSA); bits
// is the RSA modulus size (0: DefaultRSABits, else MinRSABits to MaxRSABits) and must
// be 0 for the other kinds.
func GenerateSigningKey(kind string, bits int) (*SigningKey, error) {
	var (
		s   crypto.Signer
		err error
	)
	if bits != 0 && kind != KeyRSA {
		return nil, fmt.Errorf("%w: a key size (%d bits) applies to RSA keys only, not to %q keys", ErrSigningKey, bits, kind)
	}
	switch kind {
	case KeyEC, "":
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case KeyEd25519:
		_, s, err = ed25519.GenerateKey(rand.Reader)
	case KeyRSA:
		if bits == 0 {
			bits = DefaultRSABits
		}
		if bits < MinRSABits || bits > MaxRSABits {
			return nil, fmt.Errorf("%w: RSA keys of %d bits are not made; use %d to %d", ErrSigningKey, bits, MinRSABits, MaxRSABits)
		}
		s, err = rsa.GenerateKey(rand.Reader, bits)
	default:
		return nil, fmt.Errorf("%w: unknown key type %q (want %s, %s or %s)", ErrSigningKey, kind, KeyEC, KeyEd25519, KeyRSA)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSigningKey, err)
	}
	return NewSigningKey(s, "")
}

// PrivatePEM encodes the private key as PKCS#8 PEM ("PRIVATE KEY").
func (k *SigningKey) PrivatePEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k.signer)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSigningKey, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// PublicJWKS returns the JWKS ({"keys": [...]}) holding the public part of each key, with
// the kid Sign writes for it by default (SigningKey.KeyID), its alg and use "sig": what
// a jku URL serves and what lint --jwks reads.
func PublicJWKS(keys ...*SigningKey) ([]byte, error) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.signer.Public(), KeyID: k.KeyID, Algorithm: k.Algorithm, Use: "sig"})
	}
	return json.Marshal(set)
}
