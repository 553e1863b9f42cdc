package card

import "bytes"

// Document returns a copy of the JSON document the card was read from (a leading UTF-8
// BOM dropped), byte for byte, so that a caller can republish it unchanged or rewrite it
// without losing the fields a2abind does not model. It is nil for a Card built by hand.
func (c *Card) Document() []byte {
	if c == nil || c.doc == nil {
		return nil
	}
	return bytes.Clone(c.doc.raw)
}
