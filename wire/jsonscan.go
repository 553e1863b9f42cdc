package wire

import "github.com/a2abind/a2abind/internal/jsontext"

// scanner walks valid JSON (its callers check it first) without decoding it: the
// ErrorInfo among an answer's details (errorinfo.go), an answer's envelope (envelope.go).
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
			s.i = jsontext.StringEnd(s.b, s.i+1)
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

// text is jsontext.Text: the one reading of a string literal.
var text = jsontext.Text
