package card

import "encoding/json"

// SignatureEntry is one entry of a card's `signatures` as written: a JWS in the JSON
// serialization, its payload (the card) detached.
type SignatureEntry struct {
	Protected string          `json:"protected"`
	Signature string          `json:"signature"`
	Header    json.RawMessage `json:"header,omitempty"`
}

// Signatures reads the `signatures` entries of the card's document, once: present is
// false when the member is absent or null (or c was built by hand); ok is false when it
// is there but is not a list of objects.
func (c *Card) Signatures() (sigs []SignatureEntry, present, ok bool) {
	if c == nil || c.doc == nil || c.doc.signatures == nil || string(c.doc.signatures) == "null" {
		return nil, false, true
	}
	d := c.doc
	d.sigOnce.Do(func() { d.sigOK = json.Unmarshal(d.signatures, &d.sigList) == nil })
	if !d.sigOK {
		return nil, true, false
	}
	return d.sigList, true, true
}

// SetSignatureState keeps v, what package signature found of the card's signatures, on
// c (lint reports it); SignatureState returns it. card does not look inside.
func (c *Card) SetSignatureState(v any) { c.sigs = v }

// SignatureState returns what SetSignatureState kept, nil if nothing.
func (c *Card) SignatureState() any { return c.sigs }
