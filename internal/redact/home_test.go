package redact_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// hiding matches what hides a secret by hand: the mark spelt out, url.URL's Redacted
// (user:xxxxx@, the query left as it is), a mask of x's or asterisks.
var hiding = regexp.MustCompile(`"REDACTED"|\.Redacted\(\)|"(xxxxx|\*\*\*+)"`)

// TestRedactionHasOneHome fails when non-test code outside internal/redact hides a
// secret by itself: every output hides them through this package.
func TestRedactionHasOneHome(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if filepath.Dir(filepath.ToSlash(rel)) == "internal/redact" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range hiding.FindAll(src, -1) {
			t.Errorf("%s: %s: hide secrets with package redact (Secrets, URL), not by hand", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
