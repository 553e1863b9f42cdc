package lint

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2abind/a2abind/signature"
)

// signatureRules are the lint rules about `signatures` (A2A 1.0 §8.4). They read the
// result of VerifySignatures; on a card that was not verified, a signed card's signatures
// are reported unverified (no key was given) and nothing is said of an unsigned one.
var signatureRules = []rule{
	{Rule{card.CodeSignatureInvalid, card.SeverityError,
		"a signature does not verify over the card in any canonical form, or breaks a rule no key can mend (alg none, no kid, an expired key)",
		"publish the card exactly as it was signed, or re-sign it as published (a2abind sign CARD --key FILE)"},
		(*linter).signatureInvalid},
	{Rule{card.CodeSignaturePartial, card.SeverityWarning,
		"a signature verifies, but its canonical form leaves out a member a2abind uses to decide where or how to connect (the v0.3 url, preferredTransport, additionalInterfaces, protocolVersion; an interface's url, binding, version or tenant; security schemes or requirements): it vouches only for the interfaces it covers (a union card signed over a v1.0 form: the supportedInterfaces v1.0 clients read, not the v0.3 url), and --require-signature dials only those",
		"re-sign the card with a2abind sign, which adds a signature covering those members, or publish a v1.0-only card"},
		(*linter).signaturePartial},
	{Rule{card.CodeSignatureUnverified, card.SeverityWarning,
		"a signature could not be checked: no trusted key with its kid (no --jwks given, or its jku is not on an allowed https origin)",
		"pass the signer's public keys with --jwks FILE, or allow its jku origin with --jku-origin https://HOST"},
		(*linter).signatureUnverified},
	{Rule{card.CodeSignatureVariant, card.SeverityWarning,
		"a signature verifies only over one SDK's canonical form (which strips the empty values the A2A 1.0 §8.4.1 form and the TCK's vectors keep, or escapes text), and the card carries no signature over a §8.4.1 form",
		"remove the empty values (\"\", [], {}) the SDK strips and the specification keeps, then re-sign, so that every canonical form agrees, or re-sign with a2abind sign"},
		(*linter).signatureVariant},
	{Rule{card.CodeSignatureValid, card.SeverityInfo,
		"a signature verifies over a reading of A2A 1.0 §8.4.1 (the card as its v1.0 proto message, or as written, as the A2A TCK's vectors sign it) with a trusted key (kid and alg named)",
		"nothing to change"},
		(*linter).signatureValid},
	{Rule{card.CodeUnsigned, card.SeverityInfo,
		"the card carries no signature; an error with --require-signature",
		"sign the card: a2abind sign CARD --key FILE (or serve --sign-key FILE)"},
		(*linter).unsigned},
}

// verification returns the card's signature results, computing the key-less ones for a
// card that was not verified. ok is false when nothing is to be said (unverified card
// without signatures, or a hand-built card).
func (l *linter) verification() (*signature.Verification, bool) {
	return signature.Current(l.c)
}

func (l *linter) signatureHits(status signature.SignatureStatus, msg func(*signature.Verification, signature.SignatureCheck) hit) []hit {
	v, ok := l.verification()
	if !ok {
		return nil
	}
	if (status == signature.StatusPartial || status == signature.StatusVariant) && slices.ContainsFunc(v.Signatures, func(s signature.SignatureCheck) bool { return s.Status == signature.StatusValid }) {
		return nil // a signature covers the whole card over a §8.4.1 form: the others only add readers
	}
	var out []hit
	for _, s := range v.Signatures {
		if s.Status == status {
			out = append(out, msg(v, s))
		}
	}
	return out
}

func sigName(s signature.SignatureCheck) string {
	parts := []string{}
	if s.KeyID != "" {
		parts = append(parts, fmt.Sprintf("kid %q", s.KeyID))
	}
	switch {
	case signature.Accepted(s.Algorithm):
		parts = append(parts, s.Algorithm)
	case s.Algorithm != "":
		parts = append(parts, fmt.Sprintf("alg %q", s.Algorithm)) // from the network: quoted
	}
	if len(parts) == 0 {
		return fmt.Sprintf("signatures[%d]", s.Index)
	}
	return fmt.Sprintf("signatures[%d] (%s)", s.Index, strings.Join(parts, ", "))
}

// unprotectedNote names the fields a matched signature does not cover.
func unprotectedNote(s signature.SignatureCheck) string {
	if len(s.Unprotected) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s %s outside the v1.0 schema, so the signature does not cover %s: clients that read %s trust them unprotected",
		wording.JoinAnd(s.Unprotected), wording.Plural(len(s.Unprotected), "is", "are"), wording.Plural(len(s.Unprotected), "it", "them"), wording.Plural(len(s.Unprotected), "it", "them"))
}

func (l *linter) signatureInvalid() []hit {
	return l.signatureHits(signature.StatusInvalid, func(v *signature.Verification, s signature.SignatureCheck) hit {
		h := hit{message: fmt.Sprintf("%s is invalid: %s", sigName(s), s.Reason)}
		if rw := v.Rewrites; len(rw) > 0 && strings.Contains(s.Reason, "does not verify") {
			h.message += fmt.Sprintf("; %s %s on a host other than the card's origin: a gateway may have rewritten the card after it was signed",
				wording.JoinAnd(rw), wording.Plural(len(rw), "is", "are"))
			h.fix = "have the gateway publish the card as signed, or re-sign what it rewrites (a2abind sign, guard --normalize --sign-key)"
		}
		return h
	})
}

func (l *linter) signaturePartial() []hit {
	return l.signatureHits(signature.StatusPartial, func(v *signature.Verification, s signature.SignatureCheck) hit {
		var covered []string
		for _, i := range l.c.Interfaces {
			if s.Covers(i.Source) {
				covered = append(covered, i.Source.String())
			}
		}
		what := "no interface"
		if len(covered) > 0 {
			what = wording.JoinAnd(covered) + " (v1.0 clients read supportedInterfaces and ignore the v0.3 members when it is there)"
		}
		return hit{message: fmt.Sprintf("%s with the key from %s is partial: %s. It covers %s%s",
			sigName(s), s.KeySource, s.Reason, what, l.jsNote(v))}
	})
}

func (l *linter) signatureUnverified() []hit {
	return l.signatureHits(signature.StatusUnverified, func(v *signature.Verification, s signature.SignatureCheck) hit {
		return hit{message: fmt.Sprintf("%s is unverified: %s", sigName(s), s.Reason)}
	})
}

func (l *linter) signatureVariant() []hit {
	return l.signatureHits(signature.StatusVariant, func(v *signature.Verification, s signature.SignatureCheck) hit {
		return hit{message: fmt.Sprintf("%s verifies with the key from %s only over the canonical form of %s, not over a form of A2A 1.0 §8.4.1 (the card as its v1.0 proto message, or as written), which keep the values it strips%s",
			sigName(s), s.KeySource, s.Form.SDK(), unprotectedNote(s))}
	})
}

func (l *linter) signatureValid() []hit {
	return l.signatureHits(signature.StatusValid, func(v *signature.Verification, s signature.SignatureCheck) hit {
		form := "the A2A 1.0 §8.4.1 canonical form (the card as its v1.0 proto message)"
		if s.Form == signature.FormNoPresence {
			form = "the card as written (RFC 8785, signatures left out), the reading of A2A 1.0 §8.4.1 the A2A TCK's signing vectors use,"
		}
		return hit{message: fmt.Sprintf("%s verifies over %s with the key from %s%s%s",
			sigName(s), form, s.KeySource, unprotectedNote(s), l.jsNote(v))}
	})
}

// jsNote says that a2a-js 1.3.0 rejects the card when none of its verified signatures
// was made over the bytes a2a-js verifies (its form, which interop/signature_test.go
// checks against the SDK byte for byte, with the SDK rejecting such a card).
func (l *linter) jsNote(v *signature.Verification) string {
	doc := l.c.Document()
	js, err := signature.Canonicalize(doc, signature.FormJS)
	if err != nil {
		return ""
	}
	for _, s := range v.Signatures {
		if s.Form == signature.FormJS {
			return ""
		}
		if p, err := signature.Canonicalize(doc, s.Form); s.Form != "" && err == nil && bytes.Equal(p, js) {
			return ""
		}
	}
	return "; a2a-js 1.3.0 rejects this card: none of its signatures is over a2a-js's canonical form of it (a2abind sign adds one)"
}

func (l *linter) unsigned() []hit {
	if v := signature.Of(l.c); v == nil || v.Signed() {
		return nil
	}
	return []hit{{message: "the card carries no signature: clients cannot tell it from a forged or rewritten one"}}
}

// RequireSignature turns unsigned, signature-unverified and signature-partial findings
// into errors when no signature of the card vouches for an interface
// (Verification.Dialable; lint and probe --require-signature).
func RequireSignature(c *card.Card, findings []card.Finding) []card.Finding {
	if c != nil {
		if _, err := signature.Of(c).Dialable(c); err == nil {
			return findings
		}
	}
	out := make([]card.Finding, len(findings))
	for i, f := range findings {
		if f.Code == card.CodeUnsigned || f.Code == card.CodeSignatureUnverified || f.Code == card.CodeSignaturePartial {
			f.Severity = card.SeverityError
			f.Message += " (--require-signature: a card must carry a signature that verifies and covers an interface)"
		}
		out[i] = f
	}
	slices.SortStableFunc(out, func(a, b card.Finding) int { return rank(a.Severity) - rank(b.Severity) })
	return out
}
