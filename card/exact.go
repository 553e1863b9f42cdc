package card

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
)

// The exact reading of a card document. a2abind matches member names exactly, as
// protojson, a2a-js and a2a-python do (encoding/json, and so a2a-go, matches them
// case-insensitively). A member whose name differs from a known field only in case, or
// is the field's proto name ("supported_interfaces"), is a stray: it is not read, and
// lint reports it. A name that appears twice in one object makes the document
// unreadable: parsers disagree on which copy wins (protojson rejects it).

// ErrAmbiguous is wrapped by the error for a document that JSON parsers read
// differently: a member name repeated in one object.
var ErrAmbiguous = errors.New("clients read the card differently")

// ReadError is a problem in how a card document is written that makes readers disagree:
// a repeated member name or nesting too deep (Parse refuses the document), a stray
// member (read by no exact reader; see Card.ReadIssues), or bytes a2a-go refuses (see
// Card.Refused). It wraps ErrAmbiguous, and ErrMalformed when Parse refuses it.
type ReadError struct {
	// Code is the lint code: CodeMemberDuplicate, CodeFieldNameCase or CodeDocumentRefused.
	Code string
	// Path is the JSON path of the member, e.g. "supportedInterfaces[0].URL".
	Path string
	// Pointer is the same place as a JSON Pointer (RFC 6901): "/supportedInterfaces/0/URL".
	Pointer string
	// Offset is the byte offset in the document where the problem is.
	Offset int64
	// Member is the member name as written.
	Member string
	// Field is, for a stray member, the field it resembles as the specification spells it.
	Field string

	form *refusedForm // CodeDocumentRefused: how the document is written (refused.go)
}

func (e *ReadError) Error() string {
	switch {
	case e.Pointer != "":
		return fmt.Sprintf("%s (JSON Pointer %q, byte %d)", e.message(), e.Pointer, e.Offset)
	case e.Offset != 0:
		return fmt.Sprintf("%s (byte %d)", e.message(), e.Offset)
	}
	return e.message()
}

func (e *ReadError) message() string {
	if e.form != nil {
		also := ""
		if e.form.unread {
			also = ", and so does a2abind"
		}
		return fmt.Sprintf("the document %s: a2a-go's card resolver refuses it (encoding/json: %q), as protojson does%s, while a2a-js reads it",
			e.form.what, e.form.says, also)
	}
	if e.Code == CodeMemberDuplicate {
		return fmt.Sprintf("the member %s appears twice in one object: JSON parsers disagree on which copy wins (protojson rejects the card)",
			strconv.Quote(e.Path))
	}
	return fmt.Sprintf("the member %s is named like the field %q but not exactly: a2a-go reads it, while a2abind, protojson, a2a-js and a2a-python do not, so clients disagree about what the card says",
		strconv.Quote(e.Path), e.Field)
}

// Unwrap makes a ReadError match ErrAmbiguous, and ErrMalformed when Parse refuses it.
func (e *ReadError) Unwrap() []error {
	if e.Code == CodeMemberDuplicate || e.form != nil && e.form.unread {
		return []error{ErrMalformed, ErrAmbiguous}
	}
	return []error{ErrAmbiguous}
}

// Finding is the lint finding for e.
func (e *ReadError) Finding() Finding {
	f := Finding{Code: e.Code, Severity: SeverityError, Message: e.Error(),
		Fix: fmt.Sprintf("keep one %q member in that object", e.Member)}
	switch {
	case e.form != nil:
		f.Fix = e.form.fix
	case e.Code == CodeFieldNameCase:
		f.Fix = fmt.Sprintf("rename %q to %q, or remove it", e.Member, e.Field)
	}
	return f
}

// ReadIssues lists the stray members of the card's document (names that differ from a
// known field only in case, or are its proto name), in document order. a2abind does not
// read them; a2a-go does. serve refuses such a card and guard withholds it.
func (c *Card) ReadIssues() []*ReadError {
	if c == nil || c.doc == nil {
		return nil
	}
	return c.doc.strays
}

// jsonNode is one JSON value as written: its byte span and, for objects and arrays,
// its children in document order.
type jsonNode struct {
	kind       byte // '{', '[', '"', 'n' (null), '0' (number), 't' (true/false)
	start, end int64
	members    []jsonMember
	elems      []*jsonNode
}

type jsonMember struct {
	name             string
	keyStart, keyEnd int64 // the key's quotes included
	value            *jsonNode
	stray            bool
}

// member returns the value of the member named exactly name.
func (n *jsonNode) member(name string) (*jsonNode, bool) {
	if n == nil {
		return nil, false
	}
	for _, m := range n.members {
		if m.name == name && !m.stray {
			return m.value, true
		}
	}
	return nil, false
}

var plainName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$-]*$`) })

// joinPath appends a member name to a JSON path: "a.b", or `a["b c"]` when the name
// is not a plain identifier.
func joinPath(path, name string) string {
	if !plainName().MatchString(name) {
		return path + "[" + strconv.Quote(name) + "]"
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// withoutStrays renders the document n was read from without its stray members (the
// rest byte for byte).
func withoutStrays(data []byte, n *jsonNode) []byte {
	var b bytes.Buffer
	var render func(n *jsonNode) bool // false: n has no stray below it
	dirty := func(n *jsonNode) bool {
		var walk func(*jsonNode) bool
		walk = func(n *jsonNode) bool {
			for _, m := range n.members {
				if m.stray || walk(m.value) {
					return true
				}
			}
			for _, e := range n.elems {
				if walk(e) {
					return true
				}
			}
			return false
		}
		return walk(n)
	}
	render = func(n *jsonNode) bool {
		if !dirty(n) {
			b.Write(data[n.start:n.end])
			return false
		}
		if n.kind == '[' {
			b.WriteByte('[')
			for i, e := range n.elems {
				if i > 0 {
					b.WriteByte(',')
				}
				render(e)
			}
			b.WriteByte(']')
			return true
		}
		b.WriteByte('{')
		first := true
		for _, m := range n.members {
			if m.stray {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.Write(data[m.keyStart:m.keyEnd])
			b.WriteByte(':')
			render(m.value)
		}
		b.WriteByte('}')
		return true
	}
	render(n)
	return b.Bytes()
}

// WithoutStrayMembers returns doc without the stray members Card.ReadIssues names
// (everything else byte for byte), and their paths. A document Parse refuses is an
// error.
func WithoutStrayMembers(doc []byte) ([]byte, []string, error) {
	c, err := Parse(doc)
	if err != nil {
		return nil, nil, err
	}
	if len(c.doc.strays) == 0 {
		return c.doc.raw, nil, nil
	}
	var paths []string
	for _, s := range c.doc.strays {
		paths = append(paths, s.Path)
	}
	return withoutStrays(c.doc.raw, c.doc.tree), paths, nil
}

// FindingOf returns the lint finding for an error of Parse or Load that is about how the
// document is written (a repeated member name, nesting too deep), so that lint reports it with its code
// and JSON path; ok is false for any other error.
func FindingOf(err error) (Finding, bool) {
	var re *ReadError
	if errors.As(err, &re) {
		return re.Finding(), true
	}
	return Finding{}, false
}
