package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// object is a JSON object with its members in document order, duplicates kept, so that
// a rewrite changes only the members it means to and every other field (unknown ones
// included) survives byte for byte.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

// decodeObject reads a JSON object member by member.
func decodeObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("the card is not a JSON object")
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", t)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the card's JSON object")
	}
	return o, nil
}

// get returns the value of key, the last one when it repeats (as JSON.parse and
// encoding/json read it).
func (o object) get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return o[i].value, true
		}
	}
	return nil, false
}

// set gives key one value: at the place of its first occurrence (later repeats
// removed), or appended.
func (o object) set(key string, v json.RawMessage) object {
	out := make(object, 0, len(o)+1)
	placed := false
	for _, m := range o {
		if m.key != key {
			out = append(out, m)
			continue
		}
		if !placed {
			out = append(out, member{key, v})
			placed = true
		}
	}
	if !placed {
		out = append(out, member{key, v})
	}
	return out
}

// without removes every member whose key matches exactly, or case-insensitively when
// fold is true.
func (o object) without(key string, fold bool) object {
	out := make(object, 0, len(o))
	for _, m := range o {
		if m.key == key || (fold && strings.EqualFold(m.key, key)) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// encode writes the object, indented with two spaces.
func (o object) encode() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// jsonString encodes s as a JSON string.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}
