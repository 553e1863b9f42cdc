package discovery_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// targetRule is how the "a target is an http(s) URL" check is spelt.
var targetRule = regexp.MustCompile(`!strings\.HasPrefix\([^)]*"http://"\)\s*&&\s*!strings\.HasPrefix\([^)]*"https://"\)`)

// TestTargetRuleHasOneHome: what a target may be (a targets file line, a catalog
// entry, a /probe target) is decided by CheckTargetURL alone; a second copy of the
// rule elsewhere fails this test.
func TestTargetRuleHasOneHome(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == filepath.Join("..", "discovery", "targets.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if targetRule.Match(src) {
			t.Errorf("%s checks for an http(s) target itself: call discovery.CheckTargetURL", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("targets.go")
	if err != nil || !targetRule.Match(src) {
		t.Fatalf("targets.go no longer spells the rule the test looks for (%v): update targetRule", err)
	}
}
