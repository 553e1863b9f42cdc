package wire

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// decoders are jsontext decoders reused across answers: reading an envelope or an
// ErrorInfo takes one without allocating it.
var decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// members reads the JSON object b (nothing after it) with jsontext, as encoding/json
// reads it (repeated names kept, invalid UTF-8 allowed), calling fn with each member's
// name (its text) and value (as written), in order; false when b is not one valid
// object.
func members(b []byte, fn func(name, v []byte)) bool {
	return read(b, '{', func(d *jsontext.Decoder) error {
		for d.PeekKind() == '"' {
			name, err := d.ReadValue()
			if err != nil {
				return err
			}
			v, err := d.ReadValue()
			if err != nil {
				return err
			}
			t, _ := text(name)
			fn(t, v)
		}
		return nil
	})
}

// errStop ends a read early.
var errStop = errors.New("stop")

// read reads b, one object or list (kind), with a pooled decoder: its opening token,
// then body, the closing token, and the end of input.
func read(b []byte, kind jsontext.Kind, body func(*jsontext.Decoder) error) bool {
	d := decoders.Get().(*jsontext.Decoder)
	defer decoders.Put(d)
	d.Reset(bytes.NewBuffer(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if d.PeekKind() != kind {
		return false
	}
	_, err := d.ReadToken()
	if err == nil {
		err = body(d)
	}
	if err == nil {
		_, err = d.ReadToken() // the closing delimiter
	}
	if err == nil {
		_, err = d.ReadToken() // nothing after it
	}
	return err == io.EOF
}

// text is the text of a JSON string literal as encoding/json decodes it (escapes read,
// invalid UTF-8 replaced by U+FFFD): quoted's own bytes when it holds neither. It is
// nil, and ok false, when quoted is not a string.
func text(quoted []byte) (t []byte, ok bool) {
	if len(quoted) < 2 || quoted[0] != '"' {
		return nil, false
	}
	if inner := quoted[1 : len(quoted)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, true
	}
	t, _ = jsontext.AppendUnquote(nil, quoted) // an error only says U+FFFD replaced something
	return t, true
}

// elements reads the JSON list b (nothing after it) as members reads an object,
// calling fn with each entry as written until it returns false; false when b is not
// one valid list or fn said so.
func elements(b []byte, fn func(v []byte) bool) bool {
	return read(b, '[', func(d *jsontext.Decoder) error {
		for d.PeekKind() != ']' {
			v, err := d.ReadValue()
			if err != nil {
				return err
			}
			if !fn(v) {
				return errStop
			}
		}
		return nil
	})
}
