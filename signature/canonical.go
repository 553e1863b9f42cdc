package signature

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/a2abind/a2abind/card"
	"github.com/go-json-experiment/json/jsontext"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
)

// Form names one way a signer turns a card into the bytes it signs. The strings are a
// stable contract (they appear in `-o json` and in findings).
type Form string

const (
	// FormSpec is A2A 1.0 §8.4.1: the card as its v1.0 proto message (fields outside the
	// schema are not part of it), `signatures` left out, proto presence rules (REQUIRED
	// fields always, `optional` fields when set, other fields when not default), RFC 8785.
	FormSpec Form = "spec"
	// FormJS is @a2a-js/sdk 1.3.0 canonicalizeAgentCard: a round trip through its v1.0
	// proto types, then every empty string, list and object removed (REQUIRED ones too),
	// then its own JCS.
	FormJS Form = "a2a-js"
	// FormPython is a2a-sdk (a2a-python) 1.x _canonicalize_agent_card: MessageToDict, empty
	// strings, lists and objects removed, then json.dumps(sort_keys=True, separators=(",",
	// ":")): non-ASCII escaped as \uXXXX (ensure_ascii), Struct numbers printed as Python
	// floats ("1.0"), keys in code-point order. Not RFC 8785.
	FormPython Form = "a2a-python"
	// FormNoPresence is the document as written, `signatures` left out, RFC 8785, with no
	// presence rules and fields outside the schema kept: the reading of §8.4.1 the A2A
	// TCK's signing vectors use (a card carrying the v0.3 url is signed with it), and what
	// a signer that canonicalises the JSON itself produces.
	FormNoPresence Form = "no-presence"
)

// Forms lists every canonical form a2abind tries: the two readings of §8.4.1 (the card
// as its v1.0 proto message, and as written) first, then the SDKs' forms.
var Forms = []Form{FormSpec, FormNoPresence, FormJS, FormPython}

// standard reports whether f is a reading of A2A 1.0 §8.4.1 (the spec text leaves open
// whether fields outside the v1.0 schema are part of "the card"; the TCK's vectors keep
// them), not one SDK's own form.
func (f Form) standard() bool { return f == FormSpec || f == FormNoPresence }

// SDK names who produces a form, for messages.
func (f Form) SDK() string {
	switch f {
	case FormSpec:
		return "the A2A 1.0 specification (§8.4.1)"
	case FormJS:
		return "a2a-js (@a2a-js/sdk 1.3.0 canonicalizeAgentCard)"
	case FormPython:
		return "a2a-python (a2a-sdk 1.x _canonicalize_agent_card)"
	case FormNoPresence:
		return "the card as written (RFC 8785, signatures left out: the A2A TCK's signing vectors' reading of §8.4.1)"
	}
	return string(f)
}

// ErrCanonical is wrapped by every error Canonicalize returns.
var ErrCanonical = errors.New("card cannot be canonicalised")

// maxCanonicalDepth bounds the nesting Canonicalize accepts (Struct values nest freely).
const maxCanonicalDepth = 64

// Canonicalize returns the bytes a signer using form signs for the card document doc
// (always without its `signatures`). A document that is not a JSON object, has duplicate
// keys, invalid UTF-8, or nests deeper than 64 levels is an error wrapping ErrCanonical.
func Canonicalize(doc []byte, form Form) ([]byte, error) {
	if int64(len(doc)) > card.DefaultMaxBytes {
		return nil, fmt.Errorf("%w: document is %d bytes, over the %d-byte limit", ErrCanonical, len(doc), card.DefaultMaxBytes)
	}
	// RFC 8785 itself rejects duplicate keys, bad UTF-8 and bad numbers: run it first so that
	// every form sees a document all JSON parsers read alike.
	if _, err := canonicalJSON(bytes.TrimPrefix(doc, utf8BOM)); err != nil {
		return nil, err
	}
	top, err := decodeTree(doc)
	if err != nil {
		return nil, err
	}
	delete(top, "signatures")
	v, err := canonicalValue(top, form)
	if err != nil {
		return nil, err
	}
	if form == FormPython {
		var b bytes.Buffer
		if err := writePython(&b, v); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return jcsOf(v)
}

// canonicalValue is what form keeps of the document top (`signatures` removed), before
// it is serialised: the value the signature covers.
func canonicalValue(top map[string]any, form Form) (any, error) {
	switch form {
	case FormNoPresence:
		return top, nil
	case FormSpec:
		return presence(cardDescriptor, top, true), nil
	case FormJS:
		return cleanEmpty(presence(cardDescriptor, top, false), map[string]any{}), nil
	case FormPython:
		return cleanEmpty(presence(cardDescriptor, top, false), nil), nil
	}
	return nil, fmt.Errorf("%w: unknown form %q", ErrCanonical, form)
}

// OutsideSchema lists the top-level keys of doc that are not fields of the v1.0 AgentCard
// (the v0.3 url, preferredTransport, ...). The spec, a2a-js and a2a-python forms leave them
// out, so a signature in those forms does not protect them.
func OutsideSchema(doc []byte) []string {
	top, err := decodeTree(doc)
	if err != nil {
		return nil
	}
	var out []string
	for k := range top {
		if k != "signatures" && fieldByName(cardDescriptor, k) == nil {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// cardDescriptor is the v1.0 AgentCard message the canonical forms are read against.
var cardDescriptor = (&a2apb.AgentCard{}).ProtoReflect().Descriptor()

// utf8BOM is dropped before canonicalising, as card.Parse drops it.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeTree reads a JSON object into maps, slices, strings, bools, json.Number and nil.
func decodeTree(doc []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(doc, utf8BOM)))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil || top == nil {
		return nil, fmt.Errorf("%w: not a JSON object", ErrCanonical)
	}
	if depth(top) > maxCanonicalDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrCanonical, maxCanonicalDepth)
	}
	if n, ok := unfit(top); ok {
		// RFC 8785 serialises IEEE 754 doubles; jsontext would write the nearest one, a
		// value the document does not hold
		return nil, fmt.Errorf("%w: the number %s does not fit a double", ErrCanonical, n)
	}
	return top, nil
}

// unfit finds a number no float64 holds (1e400), which RFC 8785 cannot serialise.
func unfit(v any) (json.Number, bool) {
	switch t := v.(type) {
	case json.Number:
		_, err := t.Float64()
		return t, err != nil
	case map[string]any:
		for _, e := range t {
			if n, ok := unfit(e); ok {
				return n, true
			}
		}
	case []any:
		for _, e := range t {
			if n, ok := unfit(e); ok {
				return n, true
			}
		}
	}
	return "", false
}

func depth(v any) int {
	d := 0
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			d = max(d, depth(e))
		}
		return d + 1
	case []any:
		for _, e := range t {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// fieldByName finds a field by its JSON name or its proto name, as protojson does.
func fieldByName(md protoreflect.MessageDescriptor, key string) protoreflect.FieldDescriptor {
	if fd := md.Fields().ByJSONName(key); fd != nil {
		return fd
	}
	return md.Fields().ByName(protoreflect.Name(key))
}

// required reports whether the proto marks the field REQUIRED (google.api.field_behavior).
func required(fd protoreflect.FieldDescriptor) bool {
	behaviors, _ := proto.GetExtension(fd.Options(), annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	return slices.Contains(behaviors, annotations.FieldBehavior_REQUIRED)
}

// presence applies proto field-presence rules to a JSON object read as message md: fields
// outside the schema and nulls go, `optional` and message fields stay when set, other
// fields stay when not default. With keepRequired (the spec's rule) REQUIRED fields stay
// even when empty (an absent one stays absent, as the §8.4.1 example shows); without it
// (what the SDKs' proto JSON does) REQUIRED fields are treated like the others.
func presence(md protoreflect.MessageDescriptor, obj map[string]any, keepRequired bool) map[string]any {
	out := map[string]any{}
	for key, v := range obj {
		fd := fieldByName(md, key)
		if fd == nil || v == nil {
			continue
		}
		if _, both := obj[fd.JSONName()]; both && key != fd.JSONName() {
			continue // "supported_interfaces" beside "supportedInterfaces": the JSON name wins, as in a2a-js
		}
		v = fieldValue(fd, v, keepRequired)
		keep := fd.HasPresence() || !isDefault(v) || (keepRequired && required(fd))
		if keep {
			out[fd.JSONName()] = v
		}
	}
	return out
}

// fieldValue applies presence rules inside a field's value: message entries of lists and
// maps, nested messages. Struct values (extension params) are kept as written; a value of
// the wrong JSON type is kept as written too (a proto reader would reject the card).
func fieldValue(fd protoreflect.FieldDescriptor, v any, keepRequired bool) any {
	msg := func(md protoreflect.MessageDescriptor, e any) any {
		o, ok := e.(map[string]any)
		if !ok || md.FullName() == "google.protobuf.Struct" || md.FullName() == "google.protobuf.Value" {
			return e
		}
		return presence(md, o, keepRequired)
	}
	switch {
	case fd.IsList():
		list, ok := v.([]any)
		if !ok || fd.Kind() != protoreflect.MessageKind {
			return v
		}
		out := make([]any, len(list))
		for i, e := range list {
			out[i] = msg(fd.Message(), e)
		}
		return out
	case fd.IsMap():
		m, ok := v.(map[string]any)
		if !ok || fd.MapValue().Kind() != protoreflect.MessageKind {
			return v
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = msg(fd.MapValue().Message(), e)
		}
		return out
	case fd.Kind() == protoreflect.MessageKind:
		return msg(fd.Message(), v)
	}
	return v
}

// isDefault reports whether v is a proto default: "", false, 0, an empty list or map.
func isDefault(v any) bool {
	switch t := v.(type) {
	case string:
		return t == ""
	case bool:
		return !t
	case json.Number:
		f, err := t.Float64()
		return err == nil && f == 0
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}

// cleanEmpty removes empty strings, nulls, empty lists and empty objects, recursively, as
// both SDKs do after their proto round trip (false and 0 stay). An object that ends up
// empty becomes ifEmpty at the top (a2a-js writes "{}", a2a-python "null").
func cleanEmpty(top map[string]any, ifEmpty any) any {
	if v := clean(top); v != nil {
		return v
	}
	return ifEmpty
}

func clean(v any) any {
	switch t := v.(type) {
	case string:
		if t == "" {
			return nil
		}
	case []any:
		out := []any{}
		for _, e := range t {
			if c := clean(e); c != nil {
				out = append(out, c)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			if c := clean(e); c != nil {
				out[k] = c
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	return v
}

// jcsOf serialises v with RFC 8785.
func jcsOf(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCanonical, err)
	}
	return canonicalJSON(raw)
}

// canonicalJSON is doc in RFC 8785's canonical form, by jsontext (go-json-experiment),
// which also refuses duplicate names, invalid UTF-8 and numbers no float64 holds.
func canonicalJSON(doc []byte) ([]byte, error) {
	v := jsontext.Value(bytes.Clone(doc))
	if err := v.Canonicalize(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCanonical, err)
	}
	return v, nil
}
