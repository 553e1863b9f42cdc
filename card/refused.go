package card

// Ways of writing a card document that a2a-go's card resolver refuses: it reads with
// encoding/json (agentcard.DefaultCardParser, a2av0's parser), which refuses a leading
// UTF-8 byte order mark and nesting deeper than 10000 levels; protojson refuses both
// too, while a2a-js 1.3.0 and 0.3.14 (fetch's response.json()) read both, and even two
// byte order marks (Node's fetch drops one, its TextDecoder the next). Any other byte
// sequence these readers refuse, a2abind refuses as well. interop's
// TestCardBytesDifferential holds this to the SDKs.

// refusedForm is one such way, as a ReadError with CodeDocumentRefused says it.
type refusedForm struct {
	what, says, fix string
	unread          bool // a2abind refuses it too (Parse's error)
}

var (
	formBOM = &refusedForm{what: "starts with a UTF-8 byte order mark",
		says: `invalid character 'ï' looking for beginning of value`,
		fix:  "save the document as UTF-8 without a byte order mark"}
	formBOMs = &refusedForm{what: "starts with two UTF-8 byte order marks",
		says: formBOM.says, fix: formBOM.fix, unread: true}
	formDepth = &refusedForm{what: "nests values deeper than 10000 levels",
		says: "exceeded max depth", fix: "nest values at most 10000 levels deep", unread: true}
)

// Refused is the ReadError (CodeDocumentRefused) for a card read from a document that
// a2a-go's card resolver refuses, one that starts with a UTF-8 byte order mark; nil
// when it reads the document (or c was built by hand). serve refuses such a card.
func (c *Card) Refused() *ReadError {
	if c == nil || c.doc == nil || !c.doc.bom {
		return nil
	}
	return &ReadError{Code: CodeDocumentRefused, form: formBOM}
}
