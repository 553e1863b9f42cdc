package signature

import (
	"errors"
	"fmt"
	"github.com/a2abind/a2abind/card"
	"reflect"
	"slices"
	"strings"
)

// What a signature must cover: every member a2abind uses to decide where and how to
// connect. A signature whose matched canonical form leaves one of them out (the v0.3
// url, preferredTransport and additionalInterfaces are not fields of the v1.0 AgentCard,
// so the spec, a2a-js and a2a-python forms drop them) proves nothing about where a
// client connects: it is partial, never valid.

// interfaceMembers are the members of a supportedInterfaces entry used for connecting.
var interfaceMembers = []string{"url", "protocolBinding", "protocolVersion", "tenant"}

// connectMembers are the top-level members used for connecting (besides
// supportedInterfaces): the v0.3 interface fields, and the security schemes and
// requirements (v1.0 securityRequirements, v0.3 security).
var connectMembers = []string{"url", "preferredTransport", "additionalInterfaces", "protocolVersion",
	"securitySchemes", "securityRequirements", "security"}

// Uncovered lists the members of the card document doc used for connecting whose value
// form's canonical form does not keep as written (JSON paths, document order), so a
// signature over that form does not cover them. Empty values count as absent.
func Uncovered(doc []byte, form Form) ([]string, error) {
	top, err := decodeTree(doc)
	if err != nil {
		return nil, err
	}
	delete(top, "signatures")
	v, err := canonicalValue(top, form)
	if err != nil {
		return nil, err
	}
	canon, _ := v.(map[string]any)
	var out []string
	check := func(path string, written, kept any) {
		if !reflect.DeepEqual(clean(written), clean(kept)) {
			out = append(out, path)
		}
	}
	// The SDK forms drop entries left empty, so entries are compared in order of the
	// ones that declare something.
	list, _ := top["supportedInterfaces"].([]any)
	keptList, _ := canon["supportedInterfaces"].([]any)
	written, at := usedEntries(list)
	kept, _ := usedEntries(keptList)
	for n, w := range written {
		for j, m := range interfaceMembers {
			var k any
			if n < len(kept) {
				k = kept[n][j]
			}
			check(fmt.Sprintf("supportedInterfaces[%d].%s", at[n], m), w[j], k)
		}
	}
	if len(kept) > len(written) {
		out = append(out, "supportedInterfaces")
	}
	for _, m := range connectMembers {
		check(m, top[m], canon[m])
	}
	return out, nil
}

// usedEntries projects interface entries onto interfaceMembers (empty values as nil),
// leaving out the entries that declare none of them; at is each one's index in list.
func usedEntries(list []any) (entries [][]any, at []int) {
	for i, e := range list {
		m, _ := e.(map[string]any)
		t := make([]any, len(interfaceMembers))
		used := false
		for j, f := range interfaceMembers {
			t[j] = clean(m[f])
			used = used || t[j] != nil
		}
		if used {
			entries, at = append(entries, t), append(at, i)
		}
	}
	return entries, at
}

// ErrNotVerified: no signature of the card verifies and covers what is dialled
// (Verification.Require, Verification.Dialable). Errors from both wrap it.
var ErrNotVerified = errors.New("no card signature verifies and covers what is dialled")

// Require is the rule for publishing or vouching for the whole card (guard
// --require-signature): nil when a signature verified (valid or variant, so it covers
// every member used to connect), otherwise an error wrapping ErrNotVerified that says,
// per signature, its status and why. A nil Verification (VerifySignatures not called) is
// refused too.
func (v *Verification) Require() error {
	if v.Verified() {
		return nil
	}
	if !v.Signed() {
		return fmt.Errorf("%w: the card carries no signature", ErrNotVerified)
	}
	why := make([]string, 0, len(v.Signatures))
	for _, s := range v.Signatures {
		why = append(why, fmt.Sprintf("signatures[%d] %s: %s", s.Index, s.Status, s.Reason))
	}
	return fmt.Errorf("%w: %s", ErrNotVerified, strings.Join(why, "; "))
}

// Dialable is the rule for dialling a card under --require-signature (probe, send,
// delegate.RequireSignature): c itself when Require passes; else, when a partial
// signature covers some interfaces (a union card signed over a v1.0 form covers its
// supportedInterfaces, which v1.0 clients read, not its v0.3 url), a copy of c holding
// only those; else Require's error. A signature that leaves a security member out covers
// no interface.
func (v *Verification) Dialable(c *card.Card) (*card.Card, error) {
	if err := v.Require(); err == nil || c == nil {
		return c, err
	}
	var keep []card.Interface
	for _, i := range c.Interfaces {
		if slices.ContainsFunc(v.Signatures, func(s SignatureCheck) bool { return s.Covers(i.Source) }) {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return nil, v.Require()
	}
	d := *c
	d.Interfaces = keep
	return &d, nil
}

// Covers reports whether a partial signature vouches for the interface declared at src:
// none of its members, and no security member, is uncovered.
func (s SignatureCheck) Covers(src card.Source) bool {
	if s.Status != StatusPartial {
		return false
	}
	entry := src.String() + "."
	for _, u := range s.Uncovered {
		switch {
		case u == "securitySchemes" || u == "securityRequirements" || u == "security" || u == card.FieldSupported:
			return false
		case src.List == card.ListSupported && strings.HasPrefix(u, entry):
			return false
		case src.List != card.ListSupported && !strings.HasPrefix(u, card.FieldSupported):
			return false // the v0.3 url, preferredTransport, additionalInterfaces or protocolVersion
		}
	}
	return true
}
