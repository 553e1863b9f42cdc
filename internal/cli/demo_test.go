package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDemoText(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"demo"}, strings.NewReader(""), &out, &errOut)
	if code != ExitOK {
		t.Fatalf("demo exit = %d, want 0; stderr %s\n%s", code, errOut.String(), out.String())
	}
	for _, want := range []string{"preferred-not-served", "interface-not-served", "handler_missing", "wrong_binding",
		"refuses", "every step behaved as the seed record says"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("demo output to a buffer has colour escapes")
	}
}

func TestDemoJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(t.Context(), []string{"demo", "-o", "json"}, strings.NewReader(""), &out, &errOut)
	if code != ExitOK {
		t.Fatalf("demo -o json exit = %d, want 0; stderr %s", code, errOut.String())
	}
	var got struct {
		OK    bool `json:"ok"`
		Steps []struct {
			Name     string `json:"name"`
			OK       bool   `json:"ok"`
			Attempts [][]struct {
				Outcome string `json:"outcome"`
			} `json:"attempts"`
		} `json:"steps"`
		Probe struct {
			OK       bool `json:"ok"`
			Findings []struct {
				Code string `json:"code"`
			} `json:"findings"`
		} `json:"probe"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("demo -o json is not JSON: %v\n%s", err, out.String())
	}
	if !got.OK || len(got.Steps) != 6 || got.Probe.OK || len(got.Probe.Findings) == 0 {
		t.Errorf("demo JSON: ok %v, %d steps, probe ok %v with %d findings; want ok, 6 steps, a failing probe", got.OK, len(got.Steps), got.Probe.OK, len(got.Probe.Findings))
	}
	for _, s := range got.Steps {
		if s.Name == "delegate" {
			if len(s.Attempts) != 2 || len(s.Attempts[0]) != 2 || len(s.Attempts[1]) != 1 || s.Attempts[0][1].Outcome != "served" {
				t.Errorf("delegate attempts = %+v, want [fail, served] then [served]", s.Attempts)
			}
		}
	}
}
