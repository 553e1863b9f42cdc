package wire

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/errordetails"
)

// errorInfo reads the google.rpc.ErrorInfo among a JSON-RPC error's data or a
// google.rpc.Status's details as a2a-go's errordetails reads them (json.Unmarshal
// into []*errordetails.Typed, or leniently a single errordetails.Typed): the first
// detail, null ones skipped, with a non-empty string "reason" whose "@type" is
// ErrorInfo or Struct (a detail without a string "@type" is a Struct), and its
// "metadata" object's string members. Member names match exactly and the last of a
// duplicated member wins, as in the map errordetails decodes into; a list holding
// anything but objects and nulls has no ErrorInfo, as its decoding fails. It scans the
// bytes instead of decoding every detail into a map[string]any, which was the largest
// part of reading an answer; FuzzErrorInfo holds it to the errordetails reading.
func errorInfo(raw json.RawMessage) (string, map[string]string) {
	if len(raw) == 0 || !json.Valid(raw) {
		return "", nil
	}
	s := scanner{b: raw}
	s.space()
	switch s.peek() {
	case '{':
		if d := s.detail(); d.errorInfo() {
			return d.read()
		}
	case '[':
		// Every element must be an object or null (else the decoding fails), so the
		// whole list is scanned before the first ErrorInfo in it is read.
		var found *detail
		s.i++
		for s.space(); s.peek() != ']'; s.space() {
			switch s.peek() {
			case '{':
				if d := s.detail(); found == nil && d.errorInfo() {
					found = &d
				}
			case 'n':
				s.i += len("null")
			default:
				return "", nil
			}
			if s.space(); s.peek() == ',' {
				s.i++
				s.space()
			}
		}
		if found != nil {
			return found.read()
		}
	}
	return "", nil
}

// detail is where a detail object's last "@type", "reason" and "metadata" values are in
// the scanned bytes (nil for a member not there).
type detail struct{ typ, reason, metadata []byte }

// errorInfo reports whether the detail is the one errorInfo reads: a non-empty string
// reason and an ErrorInfo or Struct type.
func (d detail) errorInfo() bool {
	r, ok := text(d.reason)
	if !ok || len(r) == 0 {
		return false
	}
	t, ok := text(d.typ)
	if !ok {
		return true // no string @type: errordetails reads a Struct
	}
	return string(t) == errordetails.ErrorInfoType || string(t) == errordetails.StructType
}

// read returns the detail's reason and its metadata's string members (nil when
// metadata is not an object; a later non-string member drops an earlier string one of
// the same name, as the last duplicate wins).
func (d detail) read() (string, map[string]string) {
	r, _ := text(d.reason)
	if len(d.metadata) == 0 || d.metadata[0] != '{' {
		return string(r), nil
	}
	md := map[string]string{}
	s := scanner{b: d.metadata}
	s.members(func(name, v []byte) {
		if sv, ok := text(v); ok {
			md[string(name)] = string(sv)
		} else {
			delete(md, string(name))
		}
	})
	return string(r), md
}

// scanner walks valid JSON (errorInfo checks it first) without decoding it.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// detail scans the object at s.i into a detail.
func (s *scanner) detail() detail {
	var d detail
	s.members(func(name, v []byte) {
		switch string(name) {
		case "@type":
			d.typ = v
		case "reason":
			d.reason = v
		case "metadata":
			d.metadata = v
		}
	})
	return d
}

// members scans the object at s.i, calling fn with each member's name (its text) and
// value (its bytes), in order.
func (s *scanner) members(fn func(name, v []byte)) {
	s.i++ // {
	for s.space(); s.peek() != '}'; s.space() {
		name, _ := text(s.value())
		s.space()
		s.i++ // :
		s.space()
		fn(name, s.value())
		if s.space(); s.peek() == ',' {
			s.i++
		}
	}
	s.i++ // }
}

// value skips the value at s.i and returns its bytes.
func (s *scanner) value() []byte {
	start := s.i
	depth := 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			for s.b[s.i] != '"' {
				if s.b[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
			s.i++
		case c == '{' || c == '[':
			depth++
			s.i++
		case c == '}' || c == ']':
			if depth == 0 {
				return s.b[start:s.i]
			}
			depth--
			s.i++
		case depth == 0 && (c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return s.b[start:s.i]
		default:
			s.i++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return s.b[start:s.i]
		}
	}
	return s.b[start:s.i]
}

// text returns the text a JSON value holds as encoding/json decodes it (escapes read,
// invalid UTF-8 replaced), and false when the value is not a string. The text of a
// string without escapes, in valid UTF-8, is the value's own bytes.
func text(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}
