package card

import (
	"encoding/json"

	"github.com/a2abind/a2abind/internal/jsontext"
)

// The card's fields, read from the tree readTree kept instead of a second pass of
// encoding/json over the document. decodeTree reads exactly what json.Unmarshal reads
// into a document (FuzzDocumentFromTree holds the two equal), and gives up where
// encoding/json would answer an error, so that parse can ask encoding/json for its
// message. It is used only for documents without stray members: those are read by
// encoding/json from the masked copy (exact.go), whose raw values differ from the
// document's.

// decodeTree fills d from top, the tree of data (a document json.Valid accepts, read
// by readTree with cardSchema and no stray member). It returns false, d partly filled,
// when a field's value is of a JSON kind its type does not take.
func (d *document) decodeTree(data []byte, top *jsonNode) bool {
	for _, m := range top.members {
		v := m.value
		ok := true
		switch m.name {
		case "name":
			d.Name, ok = treeString(data, v)
		case "description":
			d.Description, ok = treeString(data, v)
		case "version":
			d.Version, ok = treeString(data, v)
		case "url":
			d.URL, ok = treeString(data, v)
		case "preferredTransport":
			d.PreferredTransport, ok = treeString(data, v)
		case "protocolVersion":
			d.ProtocolVersion, ok = treeString(data, v)
		case "supportedInterfaces":
			var list []*rawV1Interface
			if list, ok = treeObjects(data, v, (*rawV1Interface).readField); v.kind == '[' {
				d.SupportedIfaces = &list
			}
		case "additionalInterfaces":
			d.AdditionalIfaces, ok = treeObjects(data, v, (*rawV03Interface).readField)
		case "securitySchemes":
			d.SecuritySchemes, ok = treeRawMap(data, v)
		case "capabilities":
			d.Capabilities, ok = treeRawMap(data, v)
		case "defaultInputModes":
			d.DefaultInputModes, ok = treeStrings(data, v)
		case "defaultOutputModes":
			d.DefaultOutputModes, ok = treeStrings(data, v)
		case "skills":
			d.Skills, ok = treeRawList(data, v)
		case "supportsAuthenticatedExtendedCard":
			d.SupportsExtendedCard = raw(data, v)
		}
		if !ok {
			return false
		}
	}
	return true
}

// raw is the value as written, as a json.RawMessage holds it (null included).
func raw(data []byte, v *jsonNode) json.RawMessage { return data[v.start:v.end:v.end] }

// treeString reads a *string: nil for null.
func treeString(data []byte, v *jsonNode) (*string, bool) {
	switch v.kind {
	case 'n':
		return nil, true
	case '"':
		t, _ := jsontext.Text(data[v.start:v.end])
		s := string(t)
		return &s, true
	}
	return nil, false
}

// treeObjects reads a list of objects: nil for null, a nil entry for a null one, and
// each object's members read by field.
func treeObjects[T any](data []byte, v *jsonNode, field func(*T, []byte, jsonMember) bool) ([]*T, bool) {
	if v.kind == 'n' {
		return nil, true
	}
	if v.kind != '[' {
		return nil, false
	}
	list := make([]*T, 0, len(v.elems))
	for _, e := range v.elems {
		if e.kind == 'n' {
			list = append(list, nil)
			continue
		}
		if e.kind != '{' {
			return nil, false
		}
		t := new(T)
		for _, m := range e.members {
			if !field(t, data, m) {
				return nil, false
			}
		}
		list = append(list, t)
	}
	return list, true
}

// readField reads one member of a supportedInterfaces entry.
func (ri *rawV1Interface) readField(data []byte, m jsonMember) (ok bool) {
	switch m.name {
	case "url":
		ri.URL, ok = treeString(data, m.value)
	case "protocolBinding":
		ri.ProtocolBinding, ok = treeString(data, m.value)
	case "protocolVersion":
		ri.ProtocolVersion, ok = treeString(data, m.value)
	case "tenant":
		var t *string
		if t, ok = treeString(data, m.value); t != nil {
			ri.Tenant = *t
		}
	default:
		ok = true
	}
	return ok
}

// readField reads one member of an additionalInterfaces entry.
func (ri *rawV03Interface) readField(data []byte, m jsonMember) (ok bool) {
	switch m.name {
	case "url":
		ri.URL, ok = treeString(data, m.value)
	case "transport":
		ri.Transport, ok = treeString(data, m.value)
	default:
		ok = true
	}
	return ok
}

// treeRawMap reads an object of raw values: nil for null.
func treeRawMap(data []byte, v *jsonNode) (map[string]json.RawMessage, bool) {
	if v.kind == 'n' {
		return nil, true
	}
	if v.kind != '{' {
		return nil, false
	}
	out := make(map[string]json.RawMessage, len(v.members))
	for _, m := range v.members {
		out[m.name] = raw(data, m.value)
	}
	return out, true
}

// treeRawList reads a list of raw values: nil for null.
func treeRawList(data []byte, v *jsonNode) ([]json.RawMessage, bool) {
	if v.kind == 'n' {
		return nil, true
	}
	if v.kind != '[' {
		return nil, false
	}
	out := make([]json.RawMessage, 0, len(v.elems))
	for _, e := range v.elems {
		out = append(out, raw(data, e))
	}
	return out, true
}

// treeStrings reads a list of strings (the tree keeps no entries of it: they are
// scanned here): nil for null, "" for a null entry.
func treeStrings(data []byte, v *jsonNode) ([]string, bool) {
	if v.kind == 'n' {
		return nil, true
	}
	if v.kind != '[' {
		return nil, false
	}
	out := []string{}
	r := &treeReader{data: data[:v.end], off: int(v.start) + 1}
	for !r.end() {
		switch start := r.off; r.data[start] {
		case 'n':
			r.off += len("null")
			out = append(out, "")
		case '"':
			r.scanString()
			t, _ := jsontext.Text(data[start:r.off])
			out = append(out, string(t))
		default:
			return nil, false
		}
	}
	return out, true
}
