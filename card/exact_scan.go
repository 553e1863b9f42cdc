package card

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/a2abind/a2abind/internal/jsontext"
)

// readTree reads data (one JSON value, nothing after it) as s describes it (cardSchema
// for a card). A syntax error is returned as encoding/json reports it; a repeated member
// name as a *ReadError, after the whole document was read.
//
// A document encoding/json accepts (json.Valid, which allocates nothing) is read by a
// scanner of its own, which allocates only the nodes it keeps and renders a member's
// JSON path only for a repeated or stray member; any other document, and one nested
// deeper than maxJSONDepth, is read by readTreeDecoder, whose errors are
// encoding/json's. FuzzTreeReaders holds the two readers to the same trees, strays and
// errors.
func readTree(data []byte, s *schemaNode) (*treeReader, *jsonNode, error) {
	if !json.Valid(data) {
		return readTreeDecoder(data, s)
	}
	r := &treeReader{data: data}
	n, ok := r.scanValue(0, s, true)
	if !ok {
		return readTreeDecoder(data, s)
	}
	if r.dup != nil {
		return nil, nil, r.dup
	}
	return r, n, nil
}

// pathStep is one step of the scanning reader's place in the document: a member's
// name, or a list entry's index (name unset). The steps are rendered into a JSON path
// (path) only when an error names it.
type pathStep struct {
	name  string
	index int // -1: a member named name
}

// path renders the steps taken to the current value: "a.b[2]", as joinPath does.
func (r *treeReader) path() string {
	p := ""
	for _, st := range r.steps {
		if st.index >= 0 {
			p += "[" + strconv.Itoa(st.index) + "]"
		} else {
			p = joinPath(p, st.name)
		}
	}
	return p
}

// skip moves past whitespace, and the commas and colons between tokens, as next does.
func (r *treeReader) skip() {
	for r.off < len(r.data) {
		switch r.data[r.off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			r.off++
		default:
			return
		}
	}
}

// scanValue is value for a document json.Valid accepts, returning the node only when
// keep (the parent keeps it); false when the document nests deeper than maxJSONDepth
// (readTreeDecoder then reports it).
func (r *treeReader) scanValue(depth int, s *schemaNode, keep bool) (*jsonNode, bool) {
	if depth > maxJSONDepth {
		return nil, false
	}
	r.skip()
	n := &r.scratch
	if keep {
		n = r.node()
	}
	n.start = int64(r.off)
	switch c := r.data[r.off]; c {
	case '{', '[':
		n.kind = c
		r.off++
		if !r.scanChildren(n, depth, s) {
			return nil, false
		}
		r.skip()
		r.off++ // the closing delimiter
	case '"':
		n.kind = '"'
		r.scanString()
	case 'n':
		n.kind = 'n'
		r.off += len("null")
	case 't':
		n.kind = 't'
		r.off += len("true")
	case 'f':
		n.kind = 't'
		r.off += len("false")
	default:
		n.kind = '0'
		for r.off < len(r.data) && isNumberByte(r.data[r.off]) {
			r.off++
		}
	}
	if !keep {
		return nil, true
	}
	n.end = int64(r.off)
	return n, true
}

// nodeChunk is how many nodes the scanning reader allocates at once.
const nodeChunk = 16

// node is a new node for the tree, taken from a chunk allocated for several.
func (r *treeReader) node() *jsonNode {
	if len(r.chunk) == cap(r.chunk) {
		r.chunk = make([]jsonNode, 0, nodeChunk)
	}
	r.chunk = r.chunk[:len(r.chunk)+1]
	return &r.chunk[len(r.chunk)-1]
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// scanString moves past the string starting at r.off (a valid one).
func (r *treeReader) scanString() { r.off = jsontext.StringEnd(r.data, r.off+1) }

// end reports whether the next token closes the object or list.
func (r *treeReader) end() bool {
	r.skip()
	return r.data[r.off] == '}' || r.data[r.off] == ']'
}

// smallObject is how many member names an object's repeat check keeps in a list
// before it takes a map.
const smallObject = 16

// scanChildren is children for a document json.Valid accepts.
func (r *treeReader) scanChildren(n *jsonNode, depth int, s *schemaNode) bool {
	if n.kind == '[' {
		var each *schemaNode
		if s != nil {
			each = s.each
		}
		for i := 0; !r.end(); i++ {
			r.steps = append(r.steps, pathStep{index: i})
			e, ok := r.scanValue(depth+1, each, each != nil)
			r.steps = r.steps[:len(r.steps)-1]
			if !ok {
				return false
			}
			if each != nil {
				n.elems = append(n.elems, e)
			}
		}
		return true
	}
	var few [smallObject]string
	names := few[:0]
	var seen map[string]bool
	for !r.end() {
		ks := r.off
		r.scanString()
		name := memberName(r.data[ks:r.off])
		m := jsonMember{name: name, keyStart: int64(ks), keyEnd: int64(r.off)}
		r.steps = append(r.steps, pathStep{name: name, index: -1})
		var repeated bool
		if seen != nil {
			repeated = seen[name]
			seen[name] = true
		} else {
			repeated = slices.Contains(names, name)
			if len(names) < smallObject {
				names = append(names, name)
			} else {
				seen = make(map[string]bool, 4*smallObject)
				for _, x := range append(names, name) {
					seen[x] = true
				}
			}
		}
		if repeated && r.dup == nil {
			r.dup = &ReadError{Code: CodeMemberDuplicate, Path: r.path(), Member: name}
		}
		child := r.describe(s, &m, r.path)
		v, ok := r.scanValue(depth+1, child, s != nil)
		r.steps = r.steps[:len(r.steps)-1]
		if !ok {
			return false
		}
		if s != nil {
			m.value = v
			if n.members == nil && s.fields != nil {
				// Room for a member per field (up to 16): one allocation for most
				// objects instead of append's doublings.
				n.members = make([]jsonMember, 0, min(len(s.fields), smallObject))
			}
			n.members = append(n.members, m)
		}
	}
	return true
}

// memberName is a member name as encoding/json decodes it (jsontext.Text); quoted is
// a valid string literal, json.Valid having accepted the document. A field's name is
// the schema's string, not a copy.
func memberName(quoted []byte) string {
	t, _ := jsontext.Text(quoted)
	if name, ok := fieldNames()[string(t)]; ok {
		return name
	}
	return string(t)
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
