package jsontext_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/internal/jsontext"
)

// FuzzText holds Text to encoding/json's decoding of a string.
func FuzzText(f *testing.F) {
	for _, s := range []string{`"reason"`, `"re\u0061son"`, `"\ud800"`, "\"\xff\"", `"a\"b"`, `""`, `1`, `"`, `null`, `"\n"`, `"ſ"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(bytes.TrimSpace(b)) != len(b) {
			return // the scanners pass a literal's own bytes, never the space around it
		}
		got, ok := jsontext.Text(b)
		var want string
		err := json.Unmarshal(b, &want)
		if wantOK := err == nil && len(b) > 0 && b[0] == '"'; ok != wantOK && json.Valid(b) {
			t.Fatalf("Text(%q) ok = %v, json.Unmarshal: %v", b, ok, err)
		}
		if ok && err == nil && !bytes.Equal(got, []byte(want)) {
			t.Fatalf("Text(%q) = %q, encoding/json %q", b, got, want)
		}
	})
}

// TestOneHome fails when another package writes its own fast reading of a JSON string
// (the no-escape, valid-UTF-8 shortcut before json.Unmarshal): the card reader and the
// answer reader once each had one.
func TestOneHome(t *testing.T) {
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "../.." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "internal/jsontext/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s := string(src)
		if strings.Contains(s, "utf8.Valid(") && strings.Contains(s, `'\\'`) && strings.Contains(s, "json.Unmarshal(") {
			t.Errorf("%s reads JSON string literals itself; use jsontext.Text", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzStringEnd holds StringEnd to encoding/json's reading of where a string literal
// ends: for any valid literal followed by anything, it returns the literal's length.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"a\"b"`, `"\\"`, `"\\\""`, `"\\\\"`, `"\u0022"`, "\"\xff\""} {
		f.Add([]byte(s), []byte(`,"x":1}`))
	}
	f.Fuzz(func(t *testing.T, lit, rest []byte) {
		var s string
		if len(lit) == 0 || lit[0] != '"' || json.Unmarshal(lit, &s) != nil || len(bytes.TrimSpace(lit)) != len(lit) {
			return
		}
		b := append(append([]byte{}, lit...), rest...)
		if got := jsontext.StringEnd(b, 1); got != len(lit) {
			t.Fatalf("StringEnd(%q, 1) = %d, want %d (the end of %q)", b, got, len(lit), lit)
		}
	})
}
