package discovery_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/a2abind/a2abind/discovery"
)

// FuzzReadTargets: whatever a targets file holds, ReadTargets returns an error or
// targets that are trimmed, non-empty, not comments, free of control characters, within
// the line bound, and never more than the file's lines.
func FuzzReadTargets(f *testing.F) {
	f.Add("# fleet\nhttp://a:1\n\n  https://b/x  \n")
	f.Add("-\n")
	f.Add("http://a\x1b[2J\n")
	f.Add("\r\nhttp://a\r\n#x\r\n")
	f.Add(strings.Repeat("a", discovery.MaxTargetLine+1))
	f.Add("\xff\xfe\n\u2028x\n")
	f.Fuzz(func(t *testing.T, file string) {
		read, err := discovery.ReadTargets("-", strings.NewReader(file))
		if err != nil {
			return
		}
		targets := make([]string, len(read))
		for i, r := range read {
			targets[i] = r.URL
		}
		if len(targets) == 0 || len(targets) > strings.Count(file, "\n")+1 {
			t.Fatalf("%d targets from %d lines", len(targets), strings.Count(file, "\n")+1)
		}
		for _, tg := range targets {
			switch {
			case tg == "" || tg != strings.TrimSpace(tg) || strings.HasPrefix(tg, "#") || tg == "-":
				t.Fatalf("target %q should have been skipped or trimmed", tg)
			case strings.ContainsFunc(tg, unicode.IsControl):
				t.Fatalf("target %q holds a control character", tg)
			case len(tg) > discovery.MaxTargetLine || !strings.HasPrefix(tg, "http://") && !strings.HasPrefix(tg, "https://"):
				t.Fatalf("target %.40q accepted", tg)
			case utf8.ValidString(file) && !utf8.ValidString(tg):
				t.Fatalf("target %q is not UTF-8 though the file is", tg)
			}
		}
	})
}
