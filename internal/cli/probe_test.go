package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// probeCLI runs the CLI in-process and returns exit code, stdout and stderr.
func probeCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(t.Context(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestProbeCmd_JSON checks the -o json contract and the exit codes on the seed agents
// (both card shapes) and on healthy agents.
func TestProbeCmd_JSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		opts         []lab.Option
		wantCode     int
		wantOutcomes []string
		wantCodes    []string
	}{
		{"seed, v0.3 card", lab.Seed(), ExitFailed,
			[]string{"wrong_binding", "served", "handler_missing"},
			[]string{"preferred-not-served", "interface-not-served"}},
		{"seed, v1.0 card", lab.SeedV1(), ExitFailed,
			[]string{"wrong_binding", "served", "handler_missing"},
			[]string{"preferred-not-served", "interface-not-served"}},
		{"healthy v1.0", lab.Healthy(), ExitOK, []string{"served", "served", "served"}, nil},
		{"healthy v0.3", lab.HealthyV03(), ExitOK, []string{"served", "served", "served"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.opts...)
			code, stdout, stderr := probeCLI(t, "", "probe", a.BaseURL, "-o", "json", "--timeout", "10s")
			if code != tt.wantCode {
				t.Errorf("probe exit = %d, want %d; stderr %s", code, tt.wantCode, stderr)
			}
			// Exactly the contract's keys.
			var raw map[string]json.RawMessage
			if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout)
			}
			var keys []string
			for k := range raw {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if diff := cmp.Diff([]string{"capabilities", "clients", "findings", "interfaces", "ok", "target"}, keys); diff != "" {
				t.Errorf("top-level keys mismatch (-want +got):\n%s", diff)
			}
			var out struct {
				Target       string
				OK           bool
				Interfaces   []map[string]any
				Findings     []map[string]any
				Clients      []map[string]any
				Capabilities []struct {
					Name, Verdict string
					Declared      *bool
					Interfaces    []map[string]any
				}
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			// The capabilities list: every capability, its claim, and per interface asked
			// (the served ones, one per binding) the outcome and evidence.
			var names []string
			for _, c := range out.Capabilities {
				names = append(names, c.Name)
				if c.Declared == nil || c.Verdict == "" {
					t.Errorf("capability %s lacks declared or verdict", c.Name)
				}
				for _, i := range c.Interfaces {
					for _, k := range []string{"url", "binding", "protocolVersion", "source", "outcome", "detail", "latencyMs"} {
						if _, ok := i[k]; !ok {
							t.Errorf("capability %s interface %v lacks %q", c.Name, i, k)
						}
					}
				}
			}
			if diff := cmp.Diff([]string{"streaming", "pushNotifications", "extendedAgentCard"}, names); diff != "" {
				t.Errorf("capabilities (-want +got):\n%s", diff)
			}
			if out.Target != a.BaseURL || out.OK != (tt.wantCode == ExitOK) {
				t.Errorf("target, ok = %q, %v; want %q, %v", out.Target, out.OK, a.BaseURL, tt.wantCode == ExitOK)
			}
			var outcomes []string
			for _, i := range out.Interfaces {
				outcomes = append(outcomes, i["outcome"].(string))
				for _, k := range []string{"url", "binding", "protocolVersion", "source", "outcome", "detail", "latencyMs"} {
					if _, ok := i[k]; !ok {
						t.Errorf("interface %v lacks %q", i, k)
					}
				}
				for k := range i {
					if !slices.Contains([]string{"url", "binding", "protocolVersion", "source", "outcome", "actualBinding", "detail", "latencyMs"}, k) {
						t.Errorf("interface has key %q outside the contract", k)
					}
				}
			}
			if diff := cmp.Diff(tt.wantOutcomes, outcomes); diff != "" {
				t.Errorf("outcomes mismatch (-want +got):\n%s", diff)
			}
			var codes []string
			for _, f := range out.Findings {
				for _, k := range []string{"code", "message", "severity"} {
					if _, ok := f[k]; !ok {
						t.Errorf("finding %v lacks %q", f, k)
					}
				}
				for k := range f {
					if !slices.Contains([]string{"code", "message", "severity", "fix", "interface"}, k) {
						t.Errorf("finding has key %q outside the contract", k)
					}
				}
				if f["severity"] == "error" {
					codes = append(codes, f["code"].(string))
					// Every error finding says what to do, as the text report does.
					if fix, _ := f["fix"].(string); fix == "" {
						t.Errorf("error finding %v has no fix", f)
					}
				}
			}
			for _, w := range tt.wantCodes {
				if !slices.Contains(codes, w) {
					t.Errorf("error findings = %v, want %s", codes, w)
				}
			}
			if tt.wantCode == ExitOK && len(codes) > 0 {
				t.Errorf("error findings = %v, want none", codes)
			}
			if want := len(probe.Profiles()); len(out.Clients) != want {
				t.Errorf("clients = %d entries, want %d", len(out.Clients), want)
			}
			for _, c := range out.Clients {
				for _, k := range []string{"profile", "outcome", "ok", "note"} {
					if _, ok := c[k]; !ok {
						t.Errorf("client %v lacks %q", c, k)
					}
				}
			}
		})
	}
}

// TestProbeCmd_Text checks the readable report of the seed agent: both defects with their
// real causes, and the client profiles that fail.
func TestProbeCmd_Text(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Seed()...)
	code, stdout, _ := probeCLI(t, "", "probe", a.BaseURL)
	t.Log("\n" + stdout)
	if code != ExitFailed {
		t.Errorf("probe exit = %d, want %d", code, ExitFailed)
	}
	for _, w := range []string{
		"INTERFACE", "DECLARED", "OUTCOME", "REALLY THERE", "LATENCY",
		"wrong_binding", "JSONRPC 0.3", "handler_missing", "unknown service lf.a2a.v1.A2AService",
		"preferred-not-served", "interface-not-served", "Client impact", "a2a-go-grpc", "FAILS", "FAIL ",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("probe output lacks %q", w)
		}
	}
}

// TestProbeCmd_Usage checks the exit code 2 cases.
func TestProbeCmd_Usage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"no target", []string{"probe"}},
		{"two targets", []string{"probe", "a", "b"}},
		{"missing file", []string{"probe", filepath.Join(dir, "nope.json")}},
		{"malformed card", []string{"probe", bad}},
		{"bad header", []string{"probe", "-H", "no-colon", bad}},
		{"missing CA file", []string{"probe", "--cacert", filepath.Join(dir, "nope.pem"), bad}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := probeCLI(t, "", tt.args...)
			if code != ExitUsage {
				t.Errorf("%v: exit = %d, want %d (stderr %q)", tt.args, code, ExitUsage, stderr)
			}
		})
	}
}

// TestProbeCmd_Timeout checks that a card whose interfaces never answer costs at most
// about --timeout, and that the card can come from a file and carry credentials.
func TestProbeCmd_Timeout(t *testing.T) {
	t.Parallel()
	silent, err := lab.Listen(lab.Silent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = silent.Close() })
	cardJSON, _ := json.Marshal(lab.V1Card("silent",
		lab.Decl{URL: "http://" + silent.Addr + "/a2a", Binding: lab.JSONRPC, Version: "1.0"},
		lab.Decl{URL: silent.Addr, Binding: lab.GRPC, Version: "1.0"}))
	file := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(file, cardJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"probe", file, "--timeout", "500ms", "-o", "json", "-H", "Authorization: Bearer x"}, strings.NewReader(""), &out, &errOut)
	}()
	select {
	case code := <-done:
		if code != ExitFailed {
			t.Errorf("exit = %d, want %d; stderr %s", code, ExitFailed, errOut.String())
		}
	case <-ctx.Done():
		t.Fatal("probe did not finish although --timeout was 500ms")
	}
	if !strings.Contains(out.String(), `"outcome": "timeout"`) {
		t.Errorf("output lacks a timeout outcome:\n%s", out.String())
	}
}

// TestProbeCmd_Flags checks that --header upgrades auth_required to a verdict and that
// --insecure and --cacert let a self-signed agent be checked (card fetch included).
func TestProbeCmd_Flags(t *testing.T) {
	t.Parallel()
	auth := labtest.Start(t, append(lab.Healthy(), lab.WithAuth("s3cret"))...)
	tlsAgent := labtest.Start(t, append(lab.Healthy(), lab.WithTLS())...)

	caFile := peerCertFile(t, tlsAgent.HTTPAddr) // the agent's certificate, as a PEM file

	tests := []struct {
		name        string
		args        []string
		wantCode    int
		wantOutcome string
	}{
		{"credentials missing", []string{"probe", auth.BaseURL}, ExitOK, "auth_required"},
		// The gRPC interface is on another port, another origin: it gets the token only
		// when its host is allowed.
		{"credentials given", []string{"probe", auth.BaseURL, "-H", "Authorization: Bearer s3cret", "--credential-host", "127.0.0.1"}, ExitOK, "served"},
		{"self-signed, verified", []string{"probe", tlsAgent.BaseURL}, ExitUsage, ""}, // the card itself cannot be fetched
		{"self-signed, --insecure", []string{"probe", tlsAgent.BaseURL, "--insecure"}, ExitOK, "served"},
		{"self-signed, --cacert", []string{"probe", tlsAgent.BaseURL, "--cacert", caFile}, ExitOK, "served"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := probeCLI(t, "", append(tt.args, "-o", "json", "--timeout", "10s")...)
			if code != tt.wantCode {
				t.Fatalf("exit = %d, want %d; stderr %s\n%s", code, tt.wantCode, stderr, stdout)
			}
			if tt.wantOutcome == "" {
				return
			}
			var out struct {
				Interfaces []struct{ Outcome string }
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			for _, i := range out.Interfaces {
				if i.Outcome != tt.wantOutcome {
					t.Errorf("outcome %s, want %s", i.Outcome, tt.wantOutcome)
				}
			}
		})
	}
}
