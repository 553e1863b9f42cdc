package card_test

import (
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
)

// splitNormalize is NormalizeVersion as it was first written, with strings.Split: the
// oracle the allocation-free reading is held to.
func splitNormalize(v string) string {
	v = strings.TrimSpace(v)
	s := strings.TrimPrefix(v, "v")
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return v
		}
	}
	return parts[0] + "." + parts[1]
}

var versionSeeds = []string{"1.0", "0.3", "0.3.0", "1.0.0", "v1.0", " 0.3 ", "1", "1.", ".1", "1..0",
	"1.0.0.0", "v", "", "1.x", "１.0", "01.002.3", "vv1.0", "1.0-rc1", "1.0.", "\t1.0\n"}

func TestNormalizeVersion(t *testing.T) {
	for v, want := range map[string]string{"0.3.0": "0.3", "1.0.0": "1.0", "v1.0": "1.0", " 0.3 ": "0.3",
		"1": "1", "1.0.0.0": "1.0.0.0", "1.x": "1.x", "v1..0": "v1..0", "01.002.3": "01.002"} {
		if got := card.NormalizeVersion(v); got != want {
			t.Errorf("NormalizeVersion(%q) = %q, want %q", v, got, want)
		}
	}
	for _, v := range versionSeeds {
		if got, want := card.NormalizeVersion(v), splitNormalize(v); got != want {
			t.Errorf("NormalizeVersion(%q) = %q, the split reading %q", v, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { card.NormalizeVersion("1.0.0") }); n != 0 {
		t.Errorf("NormalizeVersion allocates %v times", n)
	}
}

func FuzzNormalizeVersion(f *testing.F) {
	for _, v := range versionSeeds {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := card.NormalizeVersion(v), splitNormalize(v); got != want {
			t.Fatalf("NormalizeVersion(%q) = %q, the split reading %q", v, got, want)
		}
	})
}
