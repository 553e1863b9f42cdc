package card

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// maxJSONDepth is encoding/json's (and jsontext's) nesting bound.
const maxJSONDepth = 10000

// The one reader of card documents and of a signature's protected header: jsontext
// (github.com/go-json-experiment/json, encoding/json/v2's syntax layer) in one pass.
// It refuses a member name repeated in one object (jsontext's ErrDuplicateName) and
// what JSON refuses, reads invalid UTF-8 as encoding/json does (each bad byte a
// U+FFFD), and keeps the nodes the schema describes, marking the stray members there.
// Every error names its JSON Pointer and byte offset.

// treeReader is one reading of a document.
type treeReader struct {
	dec     *jsontext.Decoder
	strays  []*ReadError // in document order
	steps   []step       // where the reader is, for a JSON path and pointer
	chunk   []jsonNode   // where node takes the nodes it keeps
	scratch jsonNode
}

// readTree reads data (one JSON value, nothing after it) as s describes it (cardSchema
// for a card). A repeated member name or nesting past maxJSONDepth is a *ReadError;
// any other error a *jsontext.SyntacticError.
func readTree(data []byte, s *schemaNode) (*treeReader, *jsonNode, error) {
	r := &treeReader{steps: make([]step, 0, 8), dec: jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowInvalidUTF8(true))}
	n, err := r.value(0, s, true)
	if err == io.EOF { // no value at all
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, nil, err
	}
	if rest := bytes.TrimLeft(data[n.end:], " \t\r\n"); len(rest) > 0 { // a stream to jsontext, an error to a card
		return nil, nil, &jsontext.SyntacticError{ByteOffset: int64(len(data) - len(rest)),
			Err: fmt.Errorf("invalid character %q after top-level value", rest[0])}
	}
	return r, n, nil
}

// step is one step to the current value: a member's name as written (quoted), or
// a list entry's index.
type step struct {
	quoted []byte
	index  int // -1: a member
}

// where renders the steps as a JSON path ("a.b[2]", see joinPath) and a JSON Pointer.
func (r *treeReader) where() (path, pointer string) {
	var p strings.Builder
	for _, st := range r.steps {
		if st.index >= 0 {
			path += "[" + strconv.Itoa(st.index) + "]"
			p.WriteString("/" + strconv.Itoa(st.index))
			continue
		}
		name := unquote(st.quoted)
		path = joinPath(path, name)
		p.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name))
	}
	return path, p.String()
}

// value reads one value at r.steps, described by s (nil: not described), returning its
// node when keep.
func (r *treeReader) value(depth int, s *schemaNode, keep bool) (*jsonNode, error) {
	k := r.dec.PeekKind()
	if k != '{' && k != '[' {
		v, err := r.dec.ReadValue() // a PeekKind error comes back here
		if err != nil || !keep {
			return nil, err
		}
		n := r.node()
		n.end = r.dec.InputOffset()
		n.start, n.kind = n.end-int64(len(v)), byte(k)
		if k == 'f' {
			n.kind = 't'
		}
		return n, nil
	}
	if depth >= maxJSONDepth { // this object or list is one level too many (its 10000-step path is not shown)
		return nil, &ReadError{Code: CodeDocumentRefused, Offset: r.dec.InputOffset(), form: formDepth}
	}
	if _, err := r.dec.ReadToken(); err != nil {
		return nil, err
	}
	n := &r.scratch // a value not kept: its children are read, not kept
	if keep {
		n = r.node()
	}
	n.kind, n.start = byte(k), r.dec.InputOffset()-1
	if err := r.children(n, depth, s, keep); err != nil {
		return nil, err
	}
	if _, err := r.dec.ReadToken(); err != nil { // the closing delimiter
		return nil, err
	}
	n.end = r.dec.InputOffset()
	return n, nil
}

// children reads the members of an object or the entries of a list. A kept list keeps
// its entries (a list of strings is read from them).
func (r *treeReader) children(n *jsonNode, depth int, s *schemaNode, keep bool) error {
	if n.kind == '[' {
		var each *schemaNode
		if s != nil {
			each = s.each
		}
		for i := 0; r.dec.PeekKind() != ']'; i++ {
			r.steps = append(r.steps, step{index: i})
			e, err := r.value(depth+1, each, keep)
			r.steps = r.steps[:len(r.steps)-1]
			if err != nil {
				return err
			}
			if keep {
				n.elems = append(n.elems, e)
			}
		}
		return nil
	}
	for r.dec.PeekKind() != '}' {
		quoted, err := r.dec.ReadValue()
		if err != nil {
			return r.duplicate(err)
		}
		m := jsonMember{keyEnd: r.dec.InputOffset()}
		m.keyStart = m.keyEnd - int64(len(quoted))
		r.steps = append(r.steps, step{quoted: quoted, index: -1})
		var child *schemaNode
		if s != nil {
			m.name = memberName(quoted)
			child = r.describe(s, &m, m.keyStart)
		}
		m.value, err = r.value(depth+1, child, s != nil)
		r.steps = r.steps[:len(r.steps)-1]
		if err != nil {
			return err
		}
		if s != nil {
			if n.members == nil && s.fields != nil {
				// Room for a member per field (up to 16): one allocation for most
				// objects instead of append's doublings.
				n.members = make([]jsonMember, 0, min(len(s.fields), 16))
			}
			n.members = append(n.members, m)
		}
	}
	return nil
}

// duplicate turns jsontext's error for a repeated member name into a ReadError.
func (r *treeReader) duplicate(err error) error {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) || !errors.Is(err, jsontext.ErrDuplicateName) {
		return err
	}
	name := se.JSONPointer.LastToken()
	path, _ := r.where()
	return &ReadError{Code: CodeMemberDuplicate, Path: joinPath(path, name), Member: name,
		Pointer: string(se.JSONPointer), Offset: se.ByteOffset}
}

// describe returns what s says of member m's value (nil: nothing), and marks m stray,
// with a ReadError, when its name is another spelling of a field of s.
func (r *treeReader) describe(s *schemaNode, m *jsonMember, offset int64) *schemaNode {
	switch {
	case s.values != nil:
		return s.values
	case s.fields != nil:
		child, known := s.fields[m.name]
		if !known {
			if field, ok := s.variant(m.name); ok {
				m.stray = true
				path, ptr := r.where()
				r.strays = append(r.strays, &ReadError{Code: CodeFieldNameCase, Path: path, Pointer: ptr, Offset: offset, Member: m.name, Field: field})
			}
		}
		return child
	}
	return nil
}

// node is a new node for the tree, taken from a chunk allocated for several.
func (r *treeReader) node() *jsonNode {
	if len(r.chunk) == cap(r.chunk) {
		r.chunk = make([]jsonNode, 0, 16)
	}
	r.chunk = r.chunk[:len(r.chunk)+1]
	return &r.chunk[len(r.chunk)-1]
}

// unquote is the text of a string literal jsontext has read, as encoding/json decodes
// it (escapes read, invalid UTF-8 and lone surrogates replaced by U+FFFD).
func unquote(quoted []byte) string {
	if inner := quoted[1 : len(quoted)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	t, _ := jsontext.AppendUnquote(nil, quoted) // an error only says U+FFFD replaced something
	return string(t)
}

// memberName is unquote, a field's name being the schema's string, not a copy.
func memberName(quoted []byte) string {
	if name, ok := fieldNames()[string(quoted[1:len(quoted)-1])]; ok {
		return name
	}
	return unquote(quoted)
}

// fieldNames holds the name of every field of the card and header schemas, built on
// first use.
var fieldNames = sync.OnceValue(func() map[string]string {
	names := map[string]string{}
	seen := map[*schemaNode]bool{}
	var walk func(*schemaNode)
	walk = func(s *schemaNode) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for name, child := range s.fields {
			names[name] = name
			walk(child)
		}
		walk(s.each)
		walk(s.values)
	}
	walk(cardSchema())
	walk(headerSchema)
	return names
})
