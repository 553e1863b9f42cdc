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
