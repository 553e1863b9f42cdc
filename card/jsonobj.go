package card

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Object is a JSON object with its members in document order, duplicates kept, so that
// a rewrite changes only the members it means to and every other field (unknown ones
// included) survives byte for byte: the one order-preserving JSON editor (card
// signing, the guard's normalizer).
type Object []Member

// Member is one member of an Object, its value as written.
type Member struct {
	Key   string
	Value json.RawMessage
}

// DecodeObject reads a JSON object member by member (a leading UTF-8 byte order mark
// is skipped), with jsontext as the card reader does but keeping repeated names;
// anything but one object is an error, which says where (JSON Pointer, byte offset).
func DecodeObject(data []byte) (Object, error) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(bytes.TrimPrefix(data, utf8BOM)),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if dec.PeekKind() != '{' {
		return nil, errors.New("the document is not a JSON object")
	}
	var o Object
	_, err := dec.ReadToken()
	for err == nil && dec.PeekKind() == '"' {
		var k, v jsontext.Value
		if k, err = dec.ReadValue(); err == nil {
			v, err = dec.ReadValue()
			o = append(o, Member{unquote(k), bytes.Clone(v)})
		}
	}
	if err == nil {
		_, err = dec.ReadToken() // the closing brace, or the error
	}
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, fmt.Errorf("data after the card's JSON object at byte %d", dec.InputOffset())
	}
	return o, nil
}

// Get returns the value of key, the last one when it repeats (as JSON.parse and
// encoding/json read it).
func (o Object) Get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return o[i].Value, true
		}
	}
	return nil, false
}

// Set gives key one value: at the place of its first occurrence (later repeats
// removed), or appended.
func (o Object) Set(key string, v json.RawMessage) Object {
	out := make(Object, 0, len(o)+1)
	placed := false
	for _, m := range o {
		if m.Key != key {
			out = append(out, m)
			continue
		}
		if !placed {
			out = append(out, Member{key, v})
			placed = true
		}
	}
	if !placed {
		out = append(out, Member{key, v})
	}
	return out
}

// Without removes every member whose key matches exactly, or case-insensitively when
// fold is true.
func (o Object) Without(key string, fold bool) Object {
	out := make(Object, 0, len(o))
	for _, m := range o {
		if m.Key == key || (fold && strings.EqualFold(m.Key, key)) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// Encode writes the object, indented with two spaces, with a final newline.
func (o Object) Encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// JSONString encodes s as a JSON string (a Member value).
func JSONString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}
