package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// TestNewCmdProbe checks probe's flags and arguments without an agent: the command
// fills probeOptions and hands them to runF.
func TestNewCmdProbe(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    probeOptions
		wantErr string
	}{
		{name: "target", args: []string{"http://agent"},
			want: probeOptions{Target: "http://agent", Concurrency: probe.DefaultConcurrency, Conn: connFlags{MaxInterfaces: 32}}},
		{name: "every flag", args: []string{"card.json", "-H", "A: b", "-H", "C: d", "--insecure", "--cacert", "ca.pem",
			"--credential-host", "keys", "--allow-address", "169.254.1.1", "--max-interfaces", "5", "--summary",
			"--jwks", "k.json", "--require-signature", "--timeout", "3s"},
			want: probeOptions{Target: "card.json", Conn: connFlags{Headers: []string{"A: b", "C: d"}, Insecure: true, CAFile: "ca.pem",
				CredentialHosts: []string{"keys"}, Allow: []string{"169.254.1.1"}, MaxInterfaces: 5},
				Summary: true, Sig: signatureFlags{jwks: []string{"k.json"}, require: true},
				Concurrency: probe.DefaultConcurrency, TimeoutSet: true}},
		{name: "targets", args: []string{"--targets", "fleet.txt", "--concurrency", "8"},
			want: probeOptions{Targets: "fleet.txt", Concurrency: 8, Conn: connFlags{MaxInterfaces: 32}}},
		{name: "targets and a target", args: []string{"--targets", "fleet.txt", "x"}, wantErr: "takes no TARGET"},
		{name: "no target", args: nil, wantErr: "one TARGET"},
		{name: "summary with json", args: []string{"x", "--summary", "-o", "json"}, wantErr: "--summary is a text report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *probeOptions
			code, stderr := runCmdF(t, newCmdProbe, func(o *probeOptions) error { got = o; return nil }, tt.args...)
			if tt.wantErr != "" {
				if code != ExitUsage || !strings.Contains(stderr, tt.wantErr) || got != nil {
					t.Fatalf("exit %d, stderr %q, ran %v; want 2 and %q", code, stderr, got != nil, tt.wantErr)
				}
				return
			}
			if code != ExitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if diff := cmp.Diff(tt.want, *got, cmp.AllowUnexported(probeOptions{}, signatureFlags{}),
				cmpopts.IgnoreFields(probeOptions{}, "g")); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestProbeSummary: --summary on the seed agent is one line per interface, the verdict,
// and the top finding with its fix, well under the full report's length.
func TestProbeSummary(t *testing.T) {
	a := labtest.Start(t, lab.Seed()...)
	t.Setenv("COLUMNS", "80")
	_, full, _ := runCLI(t, "", "probe", a.BaseURL, "--timeout", "10s")
	code, out, stderr := runCLI(t, "", "probe", a.BaseURL, "--summary", "--timeout", "10s")
	if code != ExitFailed {
		t.Fatalf("probe --summary = %d, want 1; stderr %s", code, stderr)
	}
	_, js, _ := runCLI(t, "", "probe", a.BaseURL, "-o", "json", "--timeout", "10s")
	var rep probeOutput
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	t.Logf("summary:\n%s", out)
	if len(lines) > 20 || len(lines)*3 > len(strings.Split(full, "\n")) {
		t.Errorf("summary has %d lines, the full report %d: not short", len(lines), len(strings.Split(full, "\n")))
	}
	for i, iface := range rep.Interfaces {
		l := lines[1+i]
		if !strings.HasPrefix(strings.TrimSpace(l), string(iface.Outcome)) || !strings.Contains(l, iface.URL) {
			t.Errorf("line %d = %q, want interface %s with outcome %s", 1+i, l, iface.URL, iface.Outcome)
		}
	}
	top := rep.Findings[0]
	for _, want := range []string{"FAIL ", "error   " + top.Code, "fix: ", "more findings (a2abind probe without --summary"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if !strings.Contains(squeeze(out), squeeze("fix: "+top.Fix)) {
		t.Errorf("summary lacks the top finding's fix %q", top.Fix)
	}
	for _, l := range lines {
		if len([]rune(l)) > 80 {
			t.Errorf("line over 80: %q", l)
		}
	}
	// A healthy agent: every interface served, ok, no finding to show.
	h := labtest.Start(t, lab.Healthy()...)
	code, out, _ = runCLI(t, "", "probe", h.BaseURL, "--summary", "--timeout", "10s")
	if code != ExitOK || !strings.Contains(out, "\nok no findings") || strings.Contains(out, "fix:") {
		t.Errorf("healthy --summary = %d:\n%s", code, out)
	}
}

// TestProbeTargetsSummary: with --targets, --summary shortens each failing target's report.
func TestProbeTargetsSummary(t *testing.T) {
	seed := labtest.Start(t, lab.Seed()...)
	healthy := labtest.Start(t, lab.Healthy()...)
	list := seed.BaseURL + "\n" + healthy.BaseURL + "\n"
	code, full, _ := runCLI(t, list, "probe", "--targets", "-", "--timeout", "20s")
	code2, short, stderr := runCLI(t, list, "probe", "--targets", "-", "--summary", "--timeout", "20s")
	if code != ExitFailed || code2 != ExitFailed {
		t.Fatalf("probe --targets = %d, with --summary %d; want 1 (%s)", code, code2, stderr)
	}
	if !strings.Contains(full, "Client impact") || strings.Contains(short, "Client impact") ||
		!strings.Contains(short, "more findings (a2abind probe without --summary") || !strings.Contains(short, "2 targets: 1 ok, 1 failing") {
		t.Errorf("--targets --summary:\n%s", short)
	}
}
