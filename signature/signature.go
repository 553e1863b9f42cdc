package signature

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/go-jose/go-jose/v4"
)

// SignatureStatus is the verdict on one entry of a card's `signatures`. The strings are a
// stable contract.
type SignatureStatus string

const (
	// StatusValid: the signature verifies over a reading of A2A 1.0 §8.4.1 (FormSpec, or
	// FormNoPresence as the A2A TCK's vectors sign) and covers every member used to connect.
	StatusValid SignatureStatus = "valid"
	// StatusVariant: it verifies only over an SDK's canonical form (see SignatureCheck.Form).
	StatusVariant SignatureStatus = "variant"
	// StatusInvalid: it does not verify, or it breaks a rule no key can mend (alg none,
	// no kid, an expired key).
	StatusInvalid SignatureStatus = "invalid"
	// StatusPartial: it verifies (Form says over which form), but that form leaves out a
	// member a2abind uses to decide where or how to connect (SignatureCheck.Uncovered),
	// typically a union card's v0.3 half: it vouches only for the interfaces whose members
	// it covers (Verification.Dialable). Never counted as Verified.
	StatusPartial SignatureStatus = "partial"
	// StatusUnverified: no trusted key for it was available.
	StatusUnverified SignatureStatus = "unverified"
)

// Algorithms a2abind verifies and signs with (A2A names ES256 and RS256; PS256 and EdDSA
// are what a2a-js and a2a-python also accept).
var signatureAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.PS256, jose.EdDSA}

func algNames() []string {
	out := make([]string, len(signatureAlgorithms))
	for i, a := range signatureAlgorithms {
		out[i] = string(a)
	}
	return out
}

// MaxSignatures bounds how many signatures of one card are checked.
const MaxSignatures = 16

// maxProtectedBytes bounds a protected header (base64url).
const maxProtectedBytes = 8 << 10

// SignatureCheck is the result for one entry of `signatures`. The JSON field names are a
// stable contract.
type SignatureCheck struct {
	// Index is the entry's position in `signatures`.
	Index int `json:"index"`
	// Status is the verdict.
	Status SignatureStatus `json:"status"`
	// KeyID is the protected header's kid.
	KeyID string `json:"kid,omitempty"`
	// Algorithm is the protected header's alg.
	Algorithm string `json:"alg,omitempty"`
	// JKU is the protected header's jku, if any.
	JKU string `json:"jku,omitempty"`
	// Form is the canonical form the signature verified over (valid, variant and partial).
	Form Form `json:"form,omitempty"`
	// KeySource says where the key that verified it came from.
	KeySource string `json:"keySource,omitempty"`
	// KeyExpiry is when the key that verified it expires (its JWK exp, or its x5c
	// certificate's NotAfter, the earlier); zero when it does not say.
	KeyExpiry time.Time `json:"keyExpiry,omitzero"`
	// Unprotected lists top-level card fields the matched form leaves out, so the
	// signature does not protect them (the v0.3 url, preferredTransport, ...).
	Unprotected []string `json:"unprotected,omitempty"`
	// Uncovered lists the members used for connecting (JSON paths) that the matched form
	// does not cover; non-empty exactly when Status is partial.
	Uncovered []string `json:"uncovered,omitempty"`
	// Reason says why the signature is invalid, unverified or partial.
	Reason string `json:"reason,omitempty"`
}

// Verification is the outcome of VerifySignatures for one card.
type Verification struct {
	// Signatures has one result per entry of the card's `signatures`, in order.
	Signatures []SignatureCheck `json:"signatures"`
	// Rewrites names the interfaces whose host is not the card's origin host, when the card
	// was fetched over HTTP(S): a gateway that rewrites interface URLs breaks signatures.
	Rewrites []string `json:"rewrites,omitempty"`
}

// Signed reports whether the card carried any signature.
func (v *Verification) Signed() bool { return v != nil && len(v.Signatures) > 0 }

// Verified reports whether at least one signature verified (valid or variant).
func (v *Verification) Verified() bool {
	if v == nil {
		return false
	}
	for _, s := range v.Signatures {
		if s.Status == StatusValid || s.Status == StatusVariant {
			return true
		}
	}
	return false
}

// VerifyOption configures VerifySignatures.
type VerifyOption func(*verifyOptions)

type verifyOptions struct {
	keys    []*KeySet
	jku     jkuFetcher
	origins []string
	now     func() time.Time
}

// WithKeySet trusts the keys of set (repeatable).
func WithKeySet(set *KeySet) VerifyOption {
	return func(o *verifyOptions) {
		if set != nil {
			o.keys = append(o.keys, set)
		}
	}
}

// WithJKUOrigins lets VerifySignatures fetch the JWKS a signature's jku names when the jku
// is an https URL on one of these origins ("https://keys.example.com[:port]"). Without it
// no jku is followed.
func WithJKUOrigins(origins ...string) VerifyOption {
	return func(o *verifyOptions) { o.origins = append(o.origins, origins...) }
}

// WithJKUClient fetches jku documents with c (its Transport and TLS settings; a2abind
// still sets the redirect policy and the time bound).
func WithJKUClient(c *http.Client) VerifyOption { return func(o *verifyOptions) { o.jku.client = c } }

// WithJKUTimeout bounds each jku fetch (default 10 s).
func WithJKUTimeout(d time.Duration) VerifyOption {
	return func(o *verifyOptions) { o.jku.timeout = d }
}

// WithClock sets the time key validity is judged at (default time.Now).
func WithClock(now func() time.Time) VerifyOption { return func(o *verifyOptions) { o.now = now } }

// VerifySignatures checks every signature of c against the trusted keys and remembers
// the result on c, where Lint reports it. It returns an error only for unusable options
// (a jku origin that is not https://host[:port]); a card without signatures yields an
// empty Verification, and Lint then reports it as unsigned.
func VerifySignatures(ctx context.Context, c *card.Card, opts ...VerifyOption) (*Verification, error) {
	o := verifyOptions{now: time.Now}
	o.jku.timeout = 10 * time.Second
	for _, opt := range opts {
		opt(&o)
	}
	for _, s := range o.origins {
		n, err := normalizeOrigin(s)
		if err != nil {
			return nil, err
		}
		o.jku.origins = append(o.jku.origins, n)
	}
	v := verify(ctx, c, &o)
	c.SetSignatureState(v)
	return v, nil
}

// Of returns what VerifySignatures found for c, nil if it was not called.
func Of(c *card.Card) *Verification {
	v, _ := c.SignatureState().(*Verification)
	return v
}

// Current returns what VerifySignatures found for c or, when it was not called, the
// check without keys (no I/O: every signature unverified). ok is false when nothing is
// to be said: a card not verified that carries no signature, or one built by hand.
func Current(c *card.Card) (v *Verification, ok bool) {
	if v := Of(c); v != nil {
		return v, true
	}
	if c.Document() == nil {
		return nil, false
	}
	v = verify(context.Background(), c, &verifyOptions{now: time.Now}) // no keys, no jku
	return v, v.Signed()
}

func verify(ctx context.Context, c *card.Card, o *verifyOptions) *Verification {
	v := &Verification{Signatures: []SignatureCheck{}}
	doc := c.Document()
	if doc == nil {
		return v
	}
	sigs, present, ok := c.Signatures()
	switch {
	case !ok:
		v.Signatures = append(v.Signatures, SignatureCheck{Status: StatusInvalid,
			Reason: "signatures is not a list of {protected, signature} objects"})
	case present && len(sigs) == 0:
		// an empty list is an unsigned card
	case len(sigs) > MaxSignatures:
		v.Signatures = append(v.Signatures, SignatureCheck{Status: StatusInvalid,
			Reason: fmt.Sprintf("the card carries %d signatures, over the limit of %d a2abind checks", len(sigs), MaxSignatures)})
	default:
		type canon struct {
			b   []byte
			err error
		}
		payloads := map[Form]canon{}
		payload := func(f Form) ([]byte, error) {
			p, ok := payloads[f]
			if !ok {
				p.b, p.err = Canonicalize(doc, f)
				payloads[f] = p
			}
			return p.b, p.err
		}
		for i, s := range sigs {
			r := checkOne(ctx, s, o, payload)
			r.Index = i
			if r.Form != "" && r.Form != FormNoPresence {
				r.Unprotected = OutsideSchema(doc)
			}
			if r.Form != "" {
				coverage(doc, &r)
			}
			v.Signatures = append(v.Signatures, r)
		}
	}
	if len(v.Signatures) > 0 {
		v.Rewrites = rewrites(c)
	}
	return v
}

// coverage turns a signature that verified over a form leaving out a member used for
// connecting into a partial one, naming the members.
func coverage(doc []byte, r *SignatureCheck) {
	unc, err := Uncovered(doc, r.Form)
	if err != nil || len(unc) == 0 {
		return // the form canonicalised, so the document decodes: err is nil here
	}
	r.Status, r.Uncovered = StatusPartial, unc
	r.Reason = fmt.Sprintf("it verifies over the %s canonical form, which does not cover %s: anyone can change %s without breaking the signature, so it vouches only for the interfaces whose members it covers (--require-signature dials only those)",
		r.Form, wording.JoinAnd(unc), wording.Plural(len(unc), "it", "them"))
}

// protectedHeader is what a2abind reads of a protected header.
type protectedHeader struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	Typ  string          `json:"typ"`
	JKU  string          `json:"jku"`
	JWK  json.RawMessage `json:"jwk"`
	X5C  json.RawMessage `json:"x5c"`
	X5U  string          `json:"x5u"`
	B64  *bool           `json:"b64"`
	Crit []string        `json:"crit"`
}

// parseProtected decodes a protected header and applies the rules no key can mend.
func parseProtected(s card.SignatureEntry) (protectedHeader, string) {
	var h protectedHeader
	if s.Protected == "" || s.Signature == "" {
		return h, "the entry needs both protected and signature (base64url)"
	}
	if len(s.Protected) > maxProtectedBytes {
		return h, fmt.Sprintf("the protected header is over %d bytes", maxProtectedBytes)
	}
	hb, err := base64.RawURLEncoding.DecodeString(s.Protected)
	if err != nil {
		return h, "protected is not base64url without padding"
	}
	// Read exactly, as go-jose does: "KID" is not kid, and a repeated member is refused.
	stray, err := card.ReadHeader(hb)
	var dup *card.ReadError
	switch {
	case errors.As(err, &dup):
		return h, fmt.Sprintf("the protected header repeats the member %q: verifiers disagree on which copy counts", dup.Member)
	case err != nil:
		return h, "the protected header is not a JSON object with string alg, kid and typ"
	case stray != nil:
		return h, fmt.Sprintf("the protected header has the member %q, named like %q but not exactly: verifiers disagree on what it says", stray.Member, stray.Field)
	}
	if err := json.Unmarshal(hb, &h); err != nil {
		return h, "the protected header is not a JSON object with string alg, kid and typ"
	}
	alg := h.Alg
	switch {
	case alg == "":
		return h, "the protected header has no alg"
	case strings.EqualFold(alg, "none"):
		return h, `alg "none" is an unsigned JWS; a2abind never accepts it`
	case !Accepted(alg):
		return h, fmt.Sprintf("alg %q is not accepted (a2abind verifies %s)", alg, strings.Join(algNames(), ", "))
	case h.Kid == "":
		return h, "the protected header has no kid (A2A 1.0 §8.4.2 requires alg, typ and kid)"
	case h.Typ == "":
		return h, "the protected header has no typ (A2A 1.0 §8.4.2 requires alg, typ and kid; typ SHOULD be \"JOSE\")"
	case h.B64 != nil || len(h.Crit) > 0:
		return h, "the protected header uses crit/b64; A2A card signatures sign the base64url payload and define no critical parameters"
	}
	return h, ""
}

// Accepted reports whether a2abind verifies signatures of the algorithm alg.
func Accepted(alg string) bool {
	for _, a := range signatureAlgorithms {
		if string(a) == alg {
			return true
		}
	}
	return false
}

// checkOne verifies one signature entry.
func checkOne(ctx context.Context, s card.SignatureEntry, o *verifyOptions, payload func(Form) ([]byte, error)) SignatureCheck {
	h, bad := parseProtected(s)
	r := SignatureCheck{KeyID: h.Kid, Algorithm: h.Alg, JKU: h.JKU}
	if bad != "" {
		r.Status, r.Reason = StatusInvalid, bad
		return r
	}
	keys, source, why := o.keysFor(ctx, h)
	if len(keys) == 0 {
		if len(h.JWK) > 0 || len(h.X5C) > 0 || h.X5U != "" {
			why += "; the header carries its own key (jwk/x5c/x5u), which proves nothing: a2abind never trusts a key that comes with the signature"
		}
		r.Status, r.Reason = StatusUnverified, why
		return r
	}
	var unusable []string
	for _, k := range keys {
		if reason := k.usableFor(h.Alg, o.now()); reason != "" {
			unusable = append(unusable, reason)
			continue
		}
		for _, f := range Forms {
			p, err := payload(f)
			if err != nil {
				continue
			}
			jws, err := jose.ParseDetached(s.Protected+".."+s.Signature, p, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(h.Alg)})
			if err != nil {
				r.Status, r.Reason = StatusInvalid, "the signature is malformed: "+strings.TrimPrefix(err.Error(), "go-jose/go-jose: ")
				return r
			}
			if jws.DetachedVerify(p, k.jwk) == nil {
				r.Status, r.Form, r.KeySource, r.KeyExpiry = StatusValid, f, source, k.notAfter
				if !f.standard() {
					r.Status = StatusVariant
				}
				return r
			}
		}
	}
	r.Status = StatusInvalid
	if len(unusable) == len(keys) {
		r.Reason = "no usable key: " + strings.Join(unusable, "; ")
		return r
	}
	if _, err := payload(FormSpec); err != nil {
		r.Reason = "the card cannot be canonicalised: " + err.Error()
		return r
	}
	r.Reason = fmt.Sprintf("the signature does not verify with key %q from %s over the card in any canonical form (spec, no-presence, a2a-js, a2a-python): the card changed after it was signed, or another key signed it", h.Kid, source)
	return r
}

// keysFor finds the trusted keys for a header: the caller's key sets first, then the
// jku's JWKS when its origin is allowed. why says why there are none.
func (o *verifyOptions) keysFor(ctx context.Context, h protectedHeader) (keys []key, source, why string) {
	for _, set := range o.keys {
		if ks := set.byKeyID(h.Kid); len(ks) > 0 {
			return ks, set.Source, ""
		}
	}
	var given []string
	for _, set := range o.keys {
		given = append(given, set.Source)
	}
	why = "no trusted key: pass --jwks FILE"
	if len(given) > 0 {
		why = fmt.Sprintf("no key with kid %q in %s", h.Kid, strings.Join(given, ", "))
	}
	if h.JKU == "" {
		return nil, "", why
	}
	set, err := o.jku.fetch(ctx, h.JKU)
	if err != nil {
		return nil, "", why + "; " + err.Error()
	}
	if ks := set.byKeyID(h.Kid); len(ks) > 0 {
		return ks, set.Source, ""
	}
	return nil, "", fmt.Sprintf("%s; no key with kid %q at jku %q (a key missing from its JWKS is revoked)", why, h.Kid, h.JKU)
}

// rewrites names the interfaces whose host is not the host the card was fetched from.
func rewrites(c *card.Card) []string {
	from := addr.OriginOf(c.Location)
	if from.IsZero() {
		return nil
	}
	var out []string
	for _, i := range c.Declared() {
		a, err := addr.ParseAddress(i.URL, i.Binding)
		if err == nil && a.Host != "" && a.Host != from.Host {
			out = append(out, fmt.Sprintf("%s (%s)", i.Source, i.URL))
		}
	}
	return out
}

// Signed reports whether the card document carries a non-empty `signatures` list.
func Signed(c *card.Card) bool {
	sigs, present, ok := c.Signatures()
	return present && (!ok || len(sigs) > 0)
}
