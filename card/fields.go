package card

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// The card's fields, read from the tree the exact reader kept: only members named
// exactly (stray ones are not read), null read as absent, and a value of a kind its
// field does not take an error naming the field, its JSON Pointer and offset.

// fill reads d's fields from top, the tree of data read with cardSchema.
func (d *document) fill(data []byte, top *jsonNode) error {
	for _, m := range top.members {
		if m.stray {
			continue
		}
		f := at{data: data, v: m.value, top: m.name, index: -1}
		var err error
		switch m.name {
		case "name":
			d.Name, err = f.str()
		case "description":
			d.Description, err = f.str()
		case "version":
			d.Version, err = f.str()
		case "url":
			d.URL, err = f.str()
		case "preferredTransport":
			d.PreferredTransport, err = f.str()
		case "protocolVersion":
			d.ProtocolVersion, err = f.str()
		case "supportedInterfaces":
			var list []*rawV1Interface
			if list, err = objects(f, (*rawV1Interface).readMember); m.value.kind == '[' {
				d.SupportedIfaces = &list
			}
		case "additionalInterfaces":
			d.AdditionalIfaces, err = objects(f, (*rawV03Interface).readMember)
		case "securitySchemes":
			d.SecuritySchemes, err = f.rawMap()
		case "capabilities":
			d.Capabilities, err = f.rawMap()
		case "defaultInputModes":
			d.DefaultInputModes, err = f.strs()
		case "defaultOutputModes":
			d.DefaultOutputModes, err = f.strs()
		case "skills":
			d.Skills, err = f.rawList()
		case "supportsAuthenticatedExtendedCard":
			d.SupportsExtendedCard = f.raw()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// at is a value of the tree and where it is: a top-level member, an entry of its
// list (index, -1 for none), a member of that (name).
type at struct {
	data  []byte
	v     *jsonNode
	top   string
	index int
	name  string
}

// member is the value of m, a member of a's object.
func (a at) member(m jsonMember) at { a.v, a.name = m.value, m.name; return a }

// entry is a's list entry i.
func (a at) entry(i int) at { a.v, a.index = a.v.elems[i], i; return a }

// field and pointer name a's place: "supportedInterfaces.url" (as encoding/json names
// it) and "/supportedInterfaces/0/url".
func (a at) field() string {
	if a.name == "" {
		return a.top
	}
	return a.top + "." + a.name
}

func (a at) pointer() string {
	p := "/" + a.top
	if a.index >= 0 {
		p += "/" + strconv.Itoa(a.index)
	}
	if a.name != "" {
		p += "/" + a.name
	}
	return p
}

// fail is the error for a value not of the kind want.
func (a at) fail(want string) error {
	found := map[byte]string{'"': "string", '0': "number", 't': "bool", '[': "array", '{': "object"}[a.v.kind]
	off := a.v.end - 1 // where encoding/json said it: a literal's last byte, a list's or object's first
	if a.v.kind == '[' || a.v.kind == '{' {
		off = a.v.start
	}
	line, col := position(a.data, off)
	return fmt.Errorf("%w: field %q at line %d, column %d: expected %s, found JSON %s (JSON Pointer %q, byte %d)",
		ErrMalformed, a.field(), line, col, want, found, a.pointer(), a.v.start)
}

// raw is the value as written, as a json.RawMessage holds it (null included).
func (a at) raw() json.RawMessage { return a.data[a.v.start:a.v.end:a.v.end] }

// str reads a *string: nil for null.
func (a at) str() (*string, error) {
	switch a.v.kind {
	case 'n':
		return nil, nil
	case '"':
		s := unquote(a.raw())
		return &s, nil
	}
	return nil, a.fail("a string")
}

// objects reads a list of objects: nil for null, a nil entry for a null one, and each
// object's members read by field.
func objects[T any](a at, field func(*T, at) error) ([]*T, error) {
	if a.v.kind == 'n' {
		return nil, nil
	}
	if a.v.kind != '[' {
		return nil, a.fail("an array")
	}
	list := make([]*T, 0, len(a.v.elems))
	for i, e := range a.v.elems {
		ea := a.entry(i)
		if e.kind == 'n' {
			list = append(list, nil)
			continue
		}
		if e.kind != '{' {
			return nil, ea.fail("an object")
		}
		t := new(T)
		for _, m := range e.members {
			if m.stray {
				continue
			}
			if err := field(t, ea.member(m)); err != nil {
				return nil, err
			}
		}
		list = append(list, t)
	}
	return list, nil
}

// readMember reads one member of a supportedInterfaces entry.
func (ri *rawV1Interface) readMember(a at) (err error) {
	switch a.name {
	case "url":
		ri.URL, err = a.str()
	case "protocolBinding":
		ri.ProtocolBinding, err = a.str()
	case "protocolVersion":
		ri.ProtocolVersion, err = a.str()
	case "tenant":
		var t *string
		if t, err = a.str(); t != nil {
			ri.Tenant = *t
		}
	}
	return err
}

// readMember reads one member of an additionalInterfaces entry.
func (ri *rawV03Interface) readMember(a at) (err error) {
	switch a.name {
	case "url":
		ri.URL, err = a.str()
	case "transport":
		ri.Transport, err = a.str()
	}
	return err
}

// rawMap reads an object of raw values: nil for null.
func (a at) rawMap() (map[string]json.RawMessage, error) {
	if a.v.kind == 'n' {
		return nil, nil
	}
	if a.v.kind != '{' {
		return nil, a.fail("an object")
	}
	out := make(map[string]json.RawMessage, len(a.v.members))
	for _, m := range a.v.members {
		if !m.stray {
			out[m.name] = a.member(m).raw()
		}
	}
	return out, nil
}

// rawList reads a list of raw values: nil for null.
func (a at) rawList() ([]json.RawMessage, error) {
	if a.v.kind == 'n' {
		return nil, nil
	}
	if a.v.kind != '[' {
		return nil, a.fail("an array")
	}
	out := make([]json.RawMessage, 0, len(a.v.elems))
	for _, e := range a.v.elems {
		out = append(out, a.data[e.start:e.end:e.end])
	}
	return out, nil
}

// strs reads a list of strings: nil for null, "" for a null entry.
func (a at) strs() ([]string, error) {
	if a.v.kind == 'n' {
		return nil, nil
	}
	if a.v.kind != '[' {
		return nil, a.fail("an array")
	}
	out := make([]string, 0, len(a.v.elems))
	for i := range a.v.elems {
		s, err := a.entry(i).str()
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, *s)
		} else {
			out = append(out, "")
		}
	}
	return out, nil
}

// readFailure is Parse's error for a document the reader refuses: the ReadError (a
// repeated member, nesting too deep), or where the JSON is broken.
func readFailure(data []byte, err error) error {
	var re *ReadError
	var se *jsontext.SyntacticError
	switch {
	case errors.As(err, &re):
		return fmt.Errorf("%w: %w", ErrMalformed, re)
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := position(data, int64(len(data)))
		return fmt.Errorf("%w: truncated JSON: the document ends at line %d, column %d before the card is complete (byte %d)",
			ErrMalformed, line, col, len(data))
	case errors.As(err, &se):
		line, col := position(data, se.ByteOffset)
		return fmt.Errorf("%w: invalid JSON at line %d, column %d: %v (JSON Pointer %q, byte %d)", ErrMalformed, line, col, se.Err, se.JSONPointer, se.ByteOffset)
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}

// readDocument reads the card's fields from data (its BOM dropped).
func readDocument(data []byte) (*document, error) {
	r, tree, err := readTree(data, cardSchema())
	if err != nil {
		return nil, readFailure(data, err)
	}
	doc := &document{strays: r.strays, tree: tree}
	if err := doc.fill(data, tree); err != nil {
		return nil, err
	}
	return doc, nil
}
