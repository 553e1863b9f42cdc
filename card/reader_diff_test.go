package card

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// FuzzReaderDifferential holds the jsontext reader (readExact, readDocument) to the
// readers it replaces (readTree's scanner and Decoder.Token reader, decodeTree and
// json.Unmarshal of the masked copy): the same cards, strays, findings and errors.
func FuzzReaderDifferential(f *testing.F) {
	for _, d := range treeDocs(f) {
		f.Add(d)
	}
	for _, s := range treeDecodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		oldCard, oldErr := parseWith(data, false, readDocumentOld)
		newCard, newErr := parseWith(data, false, readDocument)
		// Deliberate: the old readers reported a syntax error anywhere before a repeated
		// name; jsontext reports the first problem in document order. Both refuse.
		o, n := errClass(oldErr), errClass(newErr)
		if o == "syntax" && strings.HasPrefix(n, CodeMemberDuplicate) {
			return
		}
		if o != n {
			t.Fatalf("%.300q: errors differ:\nold %.300v\nnew %.300v", data, oldErr, newErr)
		}
		if oldErr == nil {
			if o, n := cardDump(oldCard), cardDump(newCard); o != n {
				t.Fatalf("%.300q: cards differ:\nold %s\nnew %s", data, o, n)
			}
		}
		_, _, e1 := readTree(data, headerSchema)
		r2, _, e2 := readExact(data, headerSchema)
		var d1 *ReadError
		if errors.As(e1, &d1) != errors.As(e2, new(*ReadError)) || (e1 == nil) != (e2 == nil) {
			t.Fatalf("%.300q: header errors differ:\nold %.300v\nnew %.300v", data, e1, e2)
		}
		if e1 == nil {
			r1, _, _ := readTree(data, headerSchema)
			if fmt.Sprint(strays(r1.strays)) != fmt.Sprint(strays(r2.strays)) {
				t.Fatalf("%.300q: header strays differ: %v / %v", data, strays(r1.strays), strays(r2.strays))
			}
		}
	})
}

var fieldError = regexp.MustCompile(`field "[^"]*" at line \d+, column \d+: expected [a-z ]+, found JSON [a-z]+`)

// errClass is what the differential compares of Parse's error: nil, a ReadError's
// code, path and member, truncation, the field of a type error, a syntax error.
func errClass(err error) string {
	var re *ReadError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return fmt.Sprintf("%s %q %q", re.Code, re.Path, re.Member)
	case errors.Is(err, ErrNotACard):
		return err.Error()
	case regexp.MustCompile("truncated JSON").MatchString(err.Error()):
		return "syntax" // encoding/json calls some truncated documents invalid ("t"): wording only
	case fieldError.MatchString(err.Error()):
		return fieldError.FindString(err.Error())
	case regexp.MustCompile("invalid JSON at line").MatchString(err.Error()):
		return "syntax"
	}
	return "other: " + err.Error()
}

func strays(list []*ReadError) []string {
	var out []string
	for _, s := range list {
		out = append(out, fmt.Sprintf("%s %q %q %q", s.Code, s.Path, s.Member, s.Field))
	}
	return out
}

// cardDump is what the differential compares of a card read.
func cardDump(c *Card) string {
	j, _ := json.Marshal(c)
	// Deliberate: the old readers left a stray member in a raw map under its masked
	// name ("_________"); the jsontext reader leaves it out (it is not read).
	masked := regexp.MustCompile(`^_+$`)
	for _, m := range []map[string]json.RawMessage{c.doc.Capabilities, c.doc.SecuritySchemes} {
		for k := range m {
			if masked.MatchString(k) {
				delete(m, k)
			}
		}
	}
	doc, _ := json.Marshal(c.doc)
	var codes []string
	for _, f := range Lint(c) {
		codes = append(codes, f.Code)
	}
	slices.Sort(codes)
	return fmt.Sprintf("%s\n%s\nnull=%v sig=%q strays=%v lint=%v decl=%v", j, doc, c.doc.NullFields, c.doc.signatures, strays(c.ReadIssues()), codes, c.Declared())
}

// BenchmarkReaderAB reads the repository's healthy cards with the old readers and the
// jsontext one (the A/B of issue 46).
func BenchmarkReaderAB(b *testing.B) {
	for _, name := range []string{"v1-healthy.json", "signed-a2abind.json"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "cards", name))
		if err != nil {
			b.Skip(err)
		}
		for _, r := range []struct {
			name string
			read func([]byte) (*document, error)
		}{{"old", readDocumentOld}, {"jsontext", readDocument}} {
			b.Run(name+"/"+r.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := parseWith(data, false, r.read); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
