package signature

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry"
)

// Bounds on key material read from files and from jku URLs.
const (
	// MaxJWKSBytes bounds a JWKS document.
	MaxJWKSBytes = 256 << 10
	// MaxJWKSKeys bounds the keys of one JWKS.
	MaxJWKSKeys = 100
	// minRSABits is the smallest RSA modulus a2abind accepts (RFC 7518 §3.3).
	minRSABits = 2048
)

// ErrKeySet is wrapped by every error about a JWKS that cannot be used.
var ErrKeySet = errors.New("unusable JWKS")

// KeySet is a set of public keys for verifying card signatures (a JWKS, RFC 7517).
type KeySet struct {
	keys []key
	// Source says where the set came from ("JWKS file keys.json", "jku https://...").
	Source string
}

// key is one JWK with the validity window a2abind honours: the leaf x5c certificate's,
// and the "nbf"/"exp" members some issuers add to a JWK.
type key struct {
	jwk       jose.JSONWebKey
	notBefore time.Time
	notAfter  time.Time
	keyOps    []string
}

// ParseKeySet reads a JWKS ({"keys": [...]}) or a single JWK. Private keys are reduced to
// their public part. source names the set in results and errors.
func ParseKeySet(data []byte, source string) (*KeySet, error) {
	if len(data) > MaxJWKSBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, over the %d-byte limit", ErrKeySet, source, len(data), MaxJWKSBytes)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("%w: %s is not JSON: %v", ErrKeySet, source, err)
	}
	if set.Keys == nil {
		set.Keys = []json.RawMessage{data} // a bare JWK
	}
	if len(set.Keys) > MaxJWKSKeys {
		return nil, fmt.Errorf("%w: %s has %d keys, over the limit of %d", ErrKeySet, source, len(set.Keys), MaxJWKSKeys)
	}
	ks := &KeySet{Source: source}
	for i, raw := range set.Keys {
		k, err := parseKey(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %s key %d: %v", ErrKeySet, source, i, err)
		}
		ks.keys = append(ks.keys, k)
	}
	return ks, nil
}

func parseKey(raw json.RawMessage) (key, error) {
	var k key
	if err := json.Unmarshal(raw, &k.jwk); err != nil {
		return k, err
	}
	if !k.jwk.Valid() {
		return k, errors.New("not a valid JWK")
	}
	if _, symmetric := k.jwk.Key.([]byte); symmetric {
		return k, errors.New("a symmetric (oct) key cannot verify a public signature")
	}
	pub := k.jwk.Public()
	pub.Certificates = k.jwk.Certificates
	k.jwk = pub
	var extra struct {
		NBF    *int64   `json:"nbf"`
		EXP    *int64   `json:"exp"`
		KeyOps []string `json:"key_ops"`
	}
	_ = json.Unmarshal(raw, &extra) // members go-jose does not keep; the key itself parsed above
	k.keyOps = extra.KeyOps
	if extra.NBF != nil {
		k.notBefore = time.Unix(*extra.NBF, 0)
	}
	if extra.EXP != nil {
		k.notAfter = time.Unix(*extra.EXP, 0)
	}
	if len(k.jwk.Certificates) > 0 {
		leaf := k.jwk.Certificates[0]
		k.notBefore, k.notAfter = laterOf(k.notBefore, leaf.NotBefore), earlierOf(k.notAfter, leaf.NotAfter)
	}
	return k, nil
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlierOf(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// LoadKeySet reads a JWKS (or one JWK) from a file, bounded by MaxJWKSBytes.
func LoadKeySet(path string) (*KeySet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKeySet, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKeySet, err)
	}
	return ParseKeySet(data, "JWKS file "+path)
}

// Len is the number of keys in the set.
func (s *KeySet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.keys)
}

// byKeyID returns the keys whose kid is kid.
func (s *KeySet) byKeyID(kid string) []key {
	if s == nil {
		return nil
	}
	var out []key
	for _, k := range s.keys {
		if k.jwk.KeyID == kid {
			out = append(out, k)
		}
	}
	return out
}

// usableFor says why k cannot verify a signature made with alg at time now ("" when it can).
func (k key) usableFor(alg string, now time.Time) string {
	j := k.jwk
	switch {
	case j.Use != "" && j.Use != "sig":
		return fmt.Sprintf("key %q is for use %q, not \"sig\"", j.KeyID, j.Use)
	case j.Algorithm != "" && j.Algorithm != alg:
		return fmt.Sprintf("key %q is for alg %s, the signature says %s", j.KeyID, j.Algorithm, alg)
	case !k.notBefore.IsZero() && now.Before(k.notBefore):
		return fmt.Sprintf("key %q is not valid before %s", j.KeyID, k.notBefore.UTC().Format(time.RFC3339))
	case !k.notAfter.IsZero() && now.After(k.notAfter):
		return fmt.Sprintf("key %q expired at %s; A2A 1.0 §8.4.3 forbids expired keys", j.KeyID, k.notAfter.UTC().Format(time.RFC3339))
	}
	if len(k.keyOps) > 0 && !slices.Contains(k.keyOps, "verify") {
		return fmt.Sprintf("key %q has key_ops %v without \"verify\"", j.KeyID, k.keyOps)
	}
	return keyFitsAlg(j.Key, alg)
}

// keyFitsAlg says why a public key does not fit alg ("" when it does).
func keyFitsAlg(pub any, alg string) string {
	switch alg {
	case string(jose.RS256), string(jose.PS256):
		k, ok := pub.(*rsa.PublicKey)
		if !ok {
			return fmt.Sprintf("%s needs an RSA key, the key is %s", alg, keyKind(pub))
		}
		if k.N.BitLen() < minRSABits {
			return fmt.Sprintf("RSA key of %d bits, under the %d-bit minimum", k.N.BitLen(), minRSABits)
		}
	case string(jose.ES256):
		k, ok := pub.(*ecdsa.PublicKey)
		if !ok || k.Curve != elliptic.P256() {
			return fmt.Sprintf("ES256 needs a P-256 EC key, the key is %s", keyKind(pub))
		}
	case string(jose.EdDSA):
		if _, ok := pub.(ed25519.PublicKey); !ok {
			return fmt.Sprintf("EdDSA needs an Ed25519 key, the key is %s", keyKind(pub))
		}
	default:
		return fmt.Sprintf("alg %q is not one a2abind accepts (%s)", alg, strings.Join(algNames(), ", "))
	}
	return ""
}

func keyKind(pub any) string {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return fmt.Sprintf("RSA %d", k.N.BitLen())
	case *ecdsa.PublicKey:
		return "EC " + k.Curve.Params().Name
	case ed25519.PublicKey:
		return "Ed25519"
	}
	return fmt.Sprintf("%T", pub)
}

// jkuFetcher fetches JWKS documents named by a signature's jku, only over HTTPS, only from
// the origins the caller allowed, bounded in size and time, never following a redirect to
// another origin and never sending credentials.
type jkuFetcher struct {
	origins []string // "https://host:port"
	client  *http.Client
	timeout time.Duration
	cache   map[string]jkuResult
}

type jkuResult struct {
	set *KeySet
	err error
}

// errJKUNotAllowed marks a jku a2abind did not follow: its signatures stay unverified.
var errJKUNotAllowed = errors.New("jku not followed")

// origin returns "scheme://host:port" of an absolute URL, the port made explicit, as
// the address model reads it (OriginOf).
func origin(u *url.URL) string { return addr.OriginOf(u.String()).String() }

// normalizeOrigin parses an allowed origin as the user writes it ("https://keys.example.com").
func normalizeOrigin(s string) (string, error) {
	a, err := addr.ParseKeyURL(strings.TrimSpace(s))
	if err != nil || a.Path != "" || a.Query != "" {
		return "", fmt.Errorf("jku origin %q: want https://host[:port]", s)
	}
	return a.Origin(true).String(), nil
}

func (f *jkuFetcher) fetch(ctx context.Context, jku string) (*KeySet, error) {
	if r, ok := f.cache[jku]; ok {
		return r.set, r.err
	}
	set, err := f.get(ctx, jku)
	if f.cache == nil {
		f.cache = map[string]jkuResult{}
	}
	f.cache[jku] = jkuResult{set, err}
	return set, err
}

func (f *jkuFetcher) get(ctx context.Context, jku string) (*KeySet, error) {
	a, err := addr.ParseKeyURL(jku)
	if err != nil {
		if o := addr.OriginOf(jku); !o.IsZero() && !o.Secure {
			return nil, fmt.Errorf("%w: jku %s is not https (A2A 1.0 §8.4.3: keys SHOULD be fetched over HTTPS)", errJKUNotAllowed, jku)
		} else if !o.IsZero() {
			return nil, fmt.Errorf("%w: jku %v", errJKUNotAllowed, err) // user:password@
		}
		return nil, fmt.Errorf("jku %q is not an absolute URL", jku)
	}
	want := a.Origin(true).String()
	if !slices.Contains(f.origins, want) {
		return nil, fmt.Errorf("%w: jku origin %s is not one you allowed (--jku-origin %s)", errJKUNotAllowed, want, strings.TrimSuffix(want, ":443"))
	}
	client := &http.Client{Timeout: f.timeout}
	if f.client != nil {
		c := *f.client
		client = &c
		if client.Timeout == 0 || client.Timeout > f.timeout {
			client.Timeout = f.timeout
		}
	}
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 3 {
			return errors.New("more than 3 redirects")
		}
		if r.URL.Scheme != "https" || origin(r.URL) != want {
			return fmt.Errorf("redirect to %s leaves the jku origin %s", origin(r.URL), want)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, jku, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	telemetry.InjectHTTP(ctx, req.Header)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("jku %s: %v", jku, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("jku %s: HTTP %d", jku, resp.StatusCode)
	}
	data, err := card.ReadLimited(resp.Body, MaxJWKSBytes)
	if err != nil {
		return nil, fmt.Errorf("jku %s: %v", jku, err)
	}
	return ParseKeySet(data, "jku "+jku)
}

// FetchKeySet fetches a JWKS the user named by URL, under the rules of a jku fetch: https
// only, that URL's origin only (redirects stay on it), bounded in size and time (d, 10 s
// when d <= 0), no credentials. client may be nil (its Transport and TLS settings are used).
func FetchKeySet(ctx context.Context, jwksURL string, client *http.Client, d time.Duration) (*KeySet, error) {
	a, err := addr.ParseKeyURL(jwksURL)
	if err != nil {
		return nil, fmt.Errorf("%w: JWKS URL %q: want an https:// URL", ErrKeySet, jwksURL)
	}
	if d <= 0 {
		d = 10 * time.Second
	}
	f := jkuFetcher{origins: []string{a.Origin(true).String()}, client: client, timeout: d}
	set, err := f.get(ctx, jwksURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKeySet, err)
	}
	set.Source = "JWKS " + jwksURL
	return set, nil
}
