package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkStartup is issue 45's whole-process comparison: `a2abind send BASE hi` and
// `a2abind --help` against a2a-go's own CLI (cmd/a2a of the module's release) doing the
// same, each a fresh process, in turns (one turn per b.N), against a healthy a2a-go echo
// agent on loopback. Both binaries are built as a user builds them (go build, no flags).
// It reports each command's median wall time and the ratios send/a2a-go and help/a2a-go
// (goal <= 1.1).
func BenchmarkStartup(b *testing.B) {
	const release = "v2.4.0"
	a2a := buildA2AGoCLI(b, release)
	bin := filepath.Join(b.TempDir(), "a2abind")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/a2abind").CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/a2abind: %v\n%s", err, out)
	}
	base := startA2AGoEcho(b, a2a)
	cmds := []struct {
		name string
		argv []string
	}{
		{"send", []string{bin, "send", base, "hi"}},
		{"a2a-go-send", []string{a2a, "send", base, "hi"}},
		{"help", []string{bin, "--help"}},
		{"a2a-go-help", []string{a2a, "--help"}},
	}
	walls := make([][]time.Duration, len(cmds))
	run := func(argv []string) time.Duration {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = os.Environ()
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", argv, err, out)
		}
		return time.Since(start)
	}
	for _, c := range cmds { // warm the page cache and a2abind's interface cache
		run(c.argv)
	}
	for b.Loop() {
		for i, c := range cmds {
			walls[i] = append(walls[i], run(c.argv))
		}
	}
	median := make([]float64, len(cmds))
	for i, c := range cmds {
		slices.Sort(walls[i])
		median[i] = float64(walls[i][len(walls[i])/2].Microseconds()) / 1000
		b.ReportMetric(median[i], c.name+"-ms")
	}
	b.ReportMetric(median[0]/median[1], "send/a2a-go")
	b.ReportMetric(median[2]/median[3], "help/a2a-go")
}
