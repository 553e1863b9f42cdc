// Package jsontext is the one home of how a2abind's JSON scanners (the card's exact
// reader in package card, the answer reader in package wire) read a string literal of
// a document that json.Valid has accepted: as encoding/json decodes it, without its
// reflection when the literal holds no escape.
package jsontext

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Text returns the text of the JSON string literal quoted (with its quotes) as
// encoding/json decodes it (escapes read, invalid UTF-8 replaced by U+FFFD), and false
// when quoted is not a string. The text of a literal without escapes, in valid UTF-8,
// is quoted's own bytes, not a copy.
func Text(quoted []byte) ([]byte, bool) {
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return nil, false
	}
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, true
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// StringEnd returns the index just past the closing quote of the string literal whose
// opening quote is at b[i-1] (b valid JSON): the next quote not escaped, found with
// IndexByte (a quote after an odd run of backslashes is escaped). It returns len(b) when
// no quote closes it.
func StringEnd(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		i += q
		esc := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			esc++
		}
		i++
		if esc%2 == 0 {
			return i
		}
	}
}
