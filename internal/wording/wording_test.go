package wording_test

import (
	"testing"

	"github.com/a2abind/a2abind/internal/wording"
)

func TestPluralAndTruncate(t *testing.T) {
	if got := wording.Plural(1, "y", "ies") + wording.Plural(2, "y", "ies") + wording.Plural(0, "y", "ies"); got != "yiesies" {
		t.Errorf("Plural: %q", got)
	}
	for _, tt := range []struct{ in, want string }{{"abc", "abc"}, {"abcd", "abc..."}, {"", ""}} {
		if got := wording.Truncate(tt.in, 3); got != tt.want {
			t.Errorf("Truncate(%q, 3) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a\x1b[31mb\n", `a\x1b[31mb\n`},
		{"\u202egnp.exe", `\u202egnp.exe`},
		{"bad \xff byte", `bad \xff byte`},
	} {
		if got := wording.Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
