package card

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readerCorpus is the corpus of FuzzReaderDifferential, the differential that held the
// jsontext reader to the readers it replaced (readTree's scanner and Decoder.Token
// reader, decodeTree, json.Unmarshal of a stray-masked copy) before they were deleted:
// the inputs it found in about five minutes of fuzzing. readerFindings is what the old
// readers made of each: an error's class (errClass) or a hash of the card (cardDump).
const (
	readerCorpus   = "testdata/fuzz/FuzzReaderDifferential"
	readerFindings = "testdata/reader-findings.txt"
)

// readerFinding is what Parse makes of data, as readerFindings records it.
func readerFinding(data []byte) string {
	c, err := Parse(data)
	if err != nil {
		return "error " + errClass(err)
	}
	return fmt.Sprintf("card %x", sha256.Sum256([]byte(cardDump(c))))[:21]
}

// corpusInputs reads the corpus files (go test fuzz v1, one []byte each).
func corpusInputs(t *testing.T) map[string][]byte {
	files, err := filepath.Glob(filepath.Join(readerCorpus, "*"))
	if err != nil || len(files) < 100 {
		t.Fatalf("reader corpus: %d files, %v", len(files), err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lit, ok := strings.CutPrefix(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[1]), "[]byte(")
		s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if !ok || err != nil {
			t.Fatalf("%s: not a []byte corpus entry: %v", f, err)
		}
		out[filepath.Base(f)] = []byte(s)
	}
	return out
}

// TestReaderCorpusFindings holds Parse to what the old readers made of the reader
// corpus. A2ABIND_RECORD=1 records the findings instead.
func TestReaderCorpusFindings(t *testing.T) {
	inputs := corpusInputs(t)
	if os.Getenv("A2ABIND_RECORD") == "1" {
		var b strings.Builder
		for name, data := range inputs {
			fmt.Fprintf(&b, "%s %s\n", name, readerFinding(data))
		}
		if err := os.WriteFile(readerFindings, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	recorded, err := os.ReadFile(readerFindings)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(recorded)), "\n") {
		name, want, _ := strings.Cut(line, " ")
		data, ok := inputs[name]
		if !ok {
			t.Errorf("%s is recorded but not in the corpus", name)
			continue
		}
		checked++
		got := readerFinding(data)
		// Deliberate: the old readers reported a syntax error anywhere before a
		// repeated name; jsontext reports the first problem in document order.
		if want == "error syntax" && strings.HasPrefix(got, "error "+CodeMemberDuplicate) {
			continue
		}
		if got != want {
			t.Errorf("%s (%.200q): Parse makes %s of it, the old readers made %s", name, data, got, want)
		}
	}
	if checked != len(inputs) {
		t.Errorf("checked %d of the %d corpus inputs: record the findings of the new ones", checked, len(inputs))
	}
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

// Lint is package lint's Lint, which lint_hook_test.go (package card_test) sets: lint
// sits above card, so only the external test package can call it.
var Lint func(*Card) []Finding

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

// BenchmarkParse reads the repository's healthy v1.0 card.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cards", "v1-healthy.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
