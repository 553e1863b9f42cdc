// Package wording holds the small text helpers every output shares: plural words,
// truncation and terminal-safe escaping.
package wording

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Truncate cuts s to its first n bytes followed by "..." when it is longer than n bytes
// (a cut may split a UTF-8 sequence: callers that need valid UTF-8 repair it).
func Truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// Escape makes text safe to print on a terminal: control characters (C0 such as ESC,
// NUL, CR, LF and TAB, DEL, C1), Unicode format characters (bidirectional overrides,
// zero-width characters), line and paragraph separators and invalid UTF-8 are written
// as Go escapes (\x1b, \r, \u202e, \xff). Printable text, spaces included, is
// unchanged.
func Escape(text string) string {
	if !strings.ContainsFunc(text, needsEscape) {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case needsEscape(r):
			q := strconv.QuoteRune(r) // e.g. '\x1b', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(text[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
		r == '\u2028' || r == '\u2029'
}
