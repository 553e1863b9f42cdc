package card

import "slices"

// Declared returns every interface the document declares, in document order and before
// de-duplication (Interfaces merges entries that differ only in binding case, or that
// repeat one another): what an SDK reading the raw lists sees. A Card built by hand
// returns its Interfaces.
func (c *Card) Declared() []Interface {
	if c.declared == nil {
		return slices.Clone(c.Interfaces)
	}
	return slices.Clone(c.declared)
}

// PreferredTransport returns the v0.3 preferredTransport as the document writes it, and
// whether it writes one (null counts as absent). Declared's primary interface has JSONRPC
// for both an absent and an empty one; a2a-js 0.3 defaults only the absent one.
func (c *Card) PreferredTransport() (string, bool) {
	if c.doc == nil || c.doc.PreferredTransport == nil {
		return "", false
	}
	return *c.doc.PreferredTransport, true
}
