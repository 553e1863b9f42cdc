package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// writeTargets writes a targets file and returns its path.
func writeTargetsFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "targets.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fleet starts a healthy and a seed agent and returns them with an address where
// nothing listens.
func fleet(t *testing.T) (healthy, seed *lab.Agent, closed string) {
	t.Helper()
	healthy = labtest.Start(t, lab.Healthy()...)
	seed = labtest.Start(t, lab.Seed()...)
	addr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	return healthy, seed, "http://" + addr
}

// TestProbeTargets_Text: the summary has a header, then one row per target as each
// finishes (the comment and blank lines skipped), with the verdicts, served/declared
// and findings, then the full report of the failing target and the error of the one
// without a card.
func TestProbeTargets_Text(t *testing.T) {
	t.Parallel()
	healthy, seed, closed := fleet(t)
	file := writeTargetsFile(t, "# the lab fleet", healthy.BaseURL, "", "  "+seed.BaseURL+"  ", closed)
	code, stdout, stderr := probeCLI(t, "", "probe", "--targets", file, "--timeout", "20s")
	if code != ExitFailed {
		t.Fatalf("exit = %d, want %d; stderr %s", code, ExitFailed, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"TARGET", "VERDICT", "SERVED", "FINDINGS"}) {
		t.Errorf("header = %q", lines[0])
	}
	want := map[string][]string{
		healthy.BaseURL: {healthy.BaseURL, "ok", "3/3", "no"},
		seed.BaseURL:    {seed.BaseURL, "FAIL", "1/3", "5", "errors,", "2", "warnings"},
		closed:          {closed, "NO", "CARD", "-"},
	}
	for _, line := range lines[1:4] {
		got := strings.Fields(line)
		w, ok := want[got[0]]
		if !ok || len(got) < len(w) || !slices.Equal(got[:len(w)], w) {
			t.Errorf("summary row %q, want one of %q", line, want)
		}
		delete(want, got[0])
	}
	if len(want) != 0 {
		t.Errorf("no row for %v", want)
	}
	for _, w := range []string{
		"3 targets: 1 ok, 1 failing, 1 without a card",
		seed.BaseURL + ": v0.3 card \"seed-agent\"", "preferred-not-served", "Client impact",
		closed + ": agent card not obtainable:",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "not obtainable: agent card not obtainable") {
		t.Errorf("the reason is said twice:\n%s", stdout)
	}
	if strings.Contains(stdout, healthy.BaseURL+": v1.0 card") {
		t.Error("the healthy target's full report is printed; only failing targets get one")
	}
	if stderr != "" {
		t.Errorf("stderr = %q, want nothing (not a terminal: no progress bar)", stderr)
	}
}

// TestProbeTargets_JSONLines: one JSON object per line, one per target, each with the
// line as given as "target"; single-target reports for cards obtained, exactly
// {"target","ok","error"} for the one that is not.
func TestProbeTargets_JSONLines(t *testing.T) {
	t.Parallel()
	healthy, seed, closed := fleet(t)
	targets := []string{healthy.BaseURL, seed.BaseURL, closed, healthy.BaseURL}
	code, stdout, stderr := probeCLI(t, strings.Join(targets, "\n"), "probe", "--targets", "-", "-o", "json", "--concurrency", "2")
	if code != ExitFailed {
		t.Fatalf("exit = %d, want %d; stderr %s", code, ExitFailed, stderr)
	}
	var got []string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("line %q is not a JSON object: %v", sc.Text(), err)
		}
		var target string
		var ok bool
		_ = json.Unmarshal(raw["target"], &target)
		_ = json.Unmarshal(raw["ok"], &ok)
		got = append(got, target)
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range raw {
				if !yield(k) {
					return
				}
			}
		})
		switch target {
		case closed:
			if !slices.Equal(keys, []string{"error", "ok", "target"}) || ok {
				t.Errorf("no-card line = %s, want exactly target, ok false, error", sc.Text())
			}
		case healthy.BaseURL, seed.BaseURL:
			if !slices.Equal(keys, []string{"capabilities", "clients", "findings", "interfaces", "ok", "target"}) {
				t.Errorf("%s: keys %v, want the single-target report's", target, keys)
			}
			if ok != (target == healthy.BaseURL) {
				t.Errorf("%s: ok = %v", target, ok)
			}
		default:
			t.Errorf("unexpected target %q", target)
		}
	}
	slices.Sort(got)
	want := slices.Clone(targets)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("targets in the JSON Lines = %v, want %v", got, want)
	}
}

// TestProbeTargets_AllFine exits 0 when every target is fine.
func TestProbeTargets_AllFine(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	b := labtest.Start(t, lab.HealthyV03()...)
	code, stdout, stderr := probeCLI(t, "", "probe", "--targets", writeTargetsFile(t, a.BaseURL, b.BaseURL))
	if code != ExitOK {
		t.Fatalf("exit = %d, want 0; stderr %s\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "2 targets: 2 ok, 0 failing, 0 without a card") {
		t.Errorf("output:\n%s", stdout)
	}
}

// TestProbeTargets_Usage: a wrong command line or targets file is exit 2, with a
// message naming the problem.
func TestProbeTargets_Usage(t *testing.T) {
	t.Parallel()
	good := writeTargetsFile(t, "http://127.0.0.1:1")
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"target and --targets", "", []string{"probe", "--targets", good, "http://x"}, "takes no TARGET"},
		{"missing file", "", []string{"probe", "--targets", filepath.Join(t.TempDir(), "nope")}, "no such file"},
		{"only comments", "", []string{"probe", "--targets", writeTargetsFile(t, "# nothing", "")}, "no target"},
		{"stdin as a target", "", []string{"probe", "--targets", writeTargetsFile(t, "-")}, "standard input"},
		{"control character", "", []string{"probe", "--targets", writeTargetsFile(t, "http://a\x1b[2Jb")}, "line 1: control character"},
		{"long line", "", []string{"probe", "--targets", writeTargetsFile(t, "http://"+strings.Repeat("a", 9000))}, "longer than"},
		{"zero concurrency", "", []string{"probe", "--targets", good, "--concurrency", "0"}, "--concurrency 0"},
		{"empty stdin", "", []string{"probe", "--targets", "-"}, "no target"},
		{"negative deadline", "", []string{"probe", "--targets", good, "--deadline", "-1s"}, "--deadline -1s is negative"},
		{"unreadable key set", "", []string{"probe", "--targets", good, "--jwks", filepath.Join(t.TempDir(), "none.json")}, "--jwks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := probeCLI(t, tt.stdin, tt.args...)
			if code != ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit = %d, stderr %q; want %d and %q", code, stderr, ExitUsage, tt.want)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}
