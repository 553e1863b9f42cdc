package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestProbeCmd_NoCapabilities: `--no-capabilities` makes the lookups only. An agent that
// declares streaming and refuses it fails the default probe with capability-not-served;
// with the flag it passes, its capabilities list is empty and its interfaces are still
// judged, alone and in a fleet.
func TestProbeCmd_NoCapabilities(t *testing.T) {
	a := labtest.Start(t, lab.StreamingRefused()...)
	targets := filepath.Join(t.TempDir(), "targets.txt")
	if err := os.WriteFile(targets, []byte(a.BaseURL+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type report struct {
		OK         bool `json:"ok"`
		Interfaces []struct {
			Outcome string `json:"outcome"`
		} `json:"interfaces"`
		Findings []struct {
			Code string `json:"code"`
		} `json:"findings"`
		Capabilities []json.RawMessage `json:"capabilities"`
	}
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		caps   bool
		failed bool
	}{
		{"default", []string{"probe", a.BaseURL, "-o", "json"}, ExitFailed, true, true},
		{"no capabilities", []string{"probe", a.BaseURL, "-o", "json", "--no-capabilities"}, 0, false, false},
		{"fleet, no capabilities", []string{"probe", "--targets", targets, "-o", "json", "--no-capabilities"}, 0, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", append(tt.args, "--timeout", "10s")...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, errOut)
			}
			var r report
			if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil {
				t.Fatalf("output is not one JSON report: %v\n%s", err, out)
			}
			if len(r.Interfaces) == 0 {
				t.Fatal("no interface judged")
			}
			for _, i := range r.Interfaces {
				if i.Outcome != "served" {
					t.Errorf("interface outcome %q, want served", i.Outcome)
				}
			}
			if got := len(r.Capabilities) > 0; got != tt.caps {
				t.Errorf("capabilities listed: %v, want %v", got, tt.caps)
			}
			failed := false
			for _, f := range r.Findings {
				failed = failed || f.Code == "capability-not-served"
			}
			if failed != tt.failed || r.OK == tt.failed {
				t.Errorf("capability-not-served: %v, ok %v; want the finding %v", failed, r.OK, tt.failed)
			}
		})
	}
}
