package card_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// maxFileLines is the most lines a non-test Go file of the module may have: a file
// that grows past it holds more than one concern and is cut along its seams.
const maxFileLines = 500

// longFileAllowed lists the non-test files that may exceed maxFileLines, each with the
// reason. A new entry needs a reason the file cannot be cut.
var longFileAllowed = map[string]string{
	// (none)
}

// moduleGoFiles calls fn with the path (relative to the module root, slash-separated)
// and contents of every non-test Go file of the module.
func moduleGoFiles(t *testing.T, fn func(rel string, src []byte)) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fn(filepath.ToSlash(rel), src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoLongFiles fails when a non-test Go file has more than maxFileLines lines,
// apart from longFileAllowed (whose entries must still be long).
func TestNoLongFiles(t *testing.T) {
	t.Parallel()
	var long []string
	seen := 0
	moduleGoFiles(t, func(rel string, src []byte) {
		seen++
		n := bytes.Count(src, []byte("\n"))
		if len(src) > 0 && src[len(src)-1] != '\n' {
			n++
		}
		_, allowed := longFileAllowed[rel]
		switch {
		case n > maxFileLines && !allowed:
			long = append(long, rel)
			t.Errorf("%s has %d lines (most %d): cut it along its seams, or add it to longFileAllowed saying why", rel, n, maxFileLines)
		case n <= maxFileLines && allowed:
			t.Errorf("longFileAllowed lists %s, which has %d lines now: remove the entry", rel, n)
		}
	})
	if seen < 50 {
		t.Fatalf("walked %d Go files; the module has more (is the walk rooted at the module?)", seen)
	}
	sort.Strings(long)
}

// bindingCase is a case of a switch over a binding's value ("case
// a2a.TransportProtocolGRPC:"); reading an answer's framing ("case ev.Framing == ...") is
// evidence, not dispatch.
var bindingCase = regexp.MustCompile(`^case a2a\.TransportProtocol\w+(, *a2a\.TransportProtocol\w+)*:`)

// TestBindingsDispatchedFromTables fails when non-test code switches over the A2A
// transport protocols: probe (probe/bindings.go), delegate (delegate/bindings.go) and
// lab (lab/bindings.go) dispatch a binding from a table, so a new binding is one file
// and one registration rather than one more case in every switch.
func TestBindingsDispatchedFromTables(t *testing.T) {
	t.Parallel()
	moduleGoFiles(t, func(rel string, src []byte) {
		sc := bufio.NewScanner(bytes.NewReader(src))
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			s := strings.TrimSpace(sc.Text())
			if bindingCase.MatchString(s) {
				t.Errorf("%s:%d switches on a binding (%s): register it in the package's bindings table", rel, line, s)
			}
		}
	})
}

// exampleFile is the name an example file has: <topic>_example_test.go.
var exampleFile = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*_example_test\.go$`)

// noExampleAllowed lists the public packages that need no example, each with the reason.
var noExampleAllowed = map[string]string{
	"interop": "the interoperability tests against real peers: no API, only doc.go",
}

// TestExamplePerPublicPackage fails when a public package (not under internal or cmd)
// has no example in a file named <topic>_example_test.go, or keeps an example in a file
// named otherwise (example_test.go, example_x_test.go).
func TestExamplePerPublicPackage(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{} // dir -> has an example in a well-named file
	moduleGoFiles(t, func(rel string, _ []byte) {
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == "." || dir == "internal" || strings.HasPrefix(dir, "internal/") || dir == "cmd" || strings.HasPrefix(dir, "cmd/") {
			return
		}
		pkgs[dir] = false
	})
	isExample := regexp.MustCompile(`(?m)^func Example`)
	for dir := range pkgs {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, dir, name))
			if err != nil {
				t.Fatal(err)
			}
			hasExample := isExample.Match(src)
			switch {
			case hasExample && exampleFile.MatchString(name):
				pkgs[dir] = true
			case hasExample:
				t.Errorf("%s/%s holds examples: name it <topic>_example_test.go", dir, name)
			case exampleFile.MatchString(name):
				t.Errorf("%s/%s is named as an example file and holds no example", dir, name)
			}
		}
	}
	if len(pkgs) < 5 {
		t.Fatalf("found %d public packages; the module has more", len(pkgs))
	}
	for dir, ok := range pkgs {
		_, allowed := noExampleAllowed[dir]
		switch {
		case !ok && !allowed:
			t.Errorf("package %s has no example: add one in %s/<topic>_example_test.go", dir, dir)
		case ok && allowed:
			t.Errorf("noExampleAllowed lists %s, which has an example now: remove the entry", dir)
		}
	}
}
