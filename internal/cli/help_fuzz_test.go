package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReflow: help text of any shape reflows without panic, keeps every word (only
// whitespace changes), and no line is longer than the width unless it holds a piece with
// no break point longer than a line.
func FuzzReflow(f *testing.F) {
	for _, s := range []string{"", "a b c", "  lint    check the card\n- item\n  more", "http://127.0.0.1:1/a/b/c?x=1&y=2",
		strings.Repeat("word ", 50), "x\n\n\ny", "\t tab", "ünïcode wörds ☃☃☃"} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, text string, width int) {
		if !utf8.ValidString(text) || width < minWidth || width > 200 || len(text) > 4000 || strings.ContainsAny(text, "\r\t\v\f") {
			return
		}
		out := reflow(text, width)
		if got, want := strings.Join(strings.Fields(out), ""), strings.Join(strings.Fields(text), ""); got != want {
			t.Fatalf("reflow changed the words:\n%q\n->\n%q", text, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if utf8.RuneCountInString(l) > width && !strings.Contains(text, strings.TrimSpace(l)) {
				t.Fatalf("line of %d runes at width %d: %q", utf8.RuneCountInString(l), width, l)
			}
		}
	})
}

// FuzzParseUse: any --use value is an interface or an error naming --use, never a panic.
func FuzzParseUse(f *testing.F) {
	for _, s := range []string{"JSONRPC@0.3=http://127.0.0.1:8080/", "rest@1.0=http://h", "GRPC@1.0=h:1", "=", "@=", "a@b=c", "x@0.3=unix:///s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		iface, err := parseUse(v)
		if err != nil {
			if !strings.Contains(err.Error(), "--use") {
				t.Fatalf("error %v does not name --use", err)
			}
			return
		}
		if !undeclared(iface) || iface.URL == "" || (iface.ProtocolVersion != "1.0" && iface.ProtocolVersion != "0.3") {
			t.Fatalf("parseUse(%q) = %+v", v, iface)
		}
	})
}
