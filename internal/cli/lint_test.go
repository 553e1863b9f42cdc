package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
)

func cardPath(name string) string { return filepath.Join("..", "..", "testdata", "cards", name) }

// runCLI runs the CLI in-process and returns exit code, stdout and stderr.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// unionStray is a union card every modelled client can use, with a stray "Name" member.
const unionStray = `{"name": "n", "Name": "n", "description": "d", "version": "1", "capabilities": {},
 "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
 "protocolVersion": "0.3.0", "url": "https://agent.example.com/a2a/v03", "preferredTransport": "JSONRPC",
 "supportedInterfaces": [
  {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
  {"url": "https://agent.example.com/a2a/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]}`

func TestLintText(t *testing.T) {
	seed, err := os.ReadFile(cardPath("seed-v03.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		stdout   []string
		stderr   string
		noStdout []string
	}{
		{name: "seed card fails", args: []string{"lint", cardPath("seed-v03.json")}, code: ExitFailed, stdout: []string{
			`v0.3 card "agent.internal", 3 interfaces`,
			"preferred  grpc     1.0  https://agent.internal:8443  url+preferredTransport",
			"error   preferred-url-mismatch (url+preferredTransport)",
			"clients that honour the hint dial GRPC at https://agent.internal:8443, the wrong socket",
			`fix: set preferredTransport to "JSONRPC"`,
			"error   binding-case (url+preferredTransport)",
			"FAIL: 4 errors, 2 warnings: clients that trust this card as written will fail (a2a-go-default,",
		}},
		{name: "healthy card passes", args: []string{"lint", cardPath("v1-healthy.json")}, code: ExitOK,
			stdout: []string{`v1.0 card "Currency Agent", 4 interfaces`, "ok: no findings"}, noStdout: []string{"error", "FAIL"}},
		{name: "warnings do not fail", args: []string{"lint", cardPath("v03-healthy.json")}, code: ExitOK,
			stdout: []string{"warning supported-interfaces-missing", "ok: 1 warning"}},
		// An error no modelled client fails on (a member "Name" no SDK but a2a-go reads, on a
		// union card every client can use): lint fails, but does not say clients will.
		{name: "error no client fails on", args: []string{"lint", "-"}, stdin: unionStray, code: ExitFailed,
			stdout:   []string{"error   field-name-case", "FAIL: 1 error: no modelled client fails on this card as written"},
			noStdout: []string{"will fail"}},
		{name: "stdin", args: []string{"lint", "-"}, stdin: string(seed), code: ExitFailed, stdout: []string{"-: v0.3 card", "preferred-url-mismatch"}},
		{name: "missing file", args: []string{"lint", cardPath("nope.json")}, code: ExitUsage, stderr: "a2abind: agent card not obtainable: open "},
		{name: "truncated card", args: []string{"lint", cardPath("truncated.json")}, code: ExitUsage,
			stderr: "truncated.json: malformed agent card: truncated JSON: the document ends at line 8, column 77"},
		{name: "wrong types", args: []string{"lint", cardPath("wrong-types.json")}, code: ExitUsage,
			stderr: `field "supportedInterfaces.url" at line 6, column 16`},
		{name: "no card", args: []string{"lint"}, code: ExitUsage, stderr: "lint needs one CARD"},
		{name: "two cards", args: []string{"lint", "a", "b"}, code: ExitUsage, stderr: "got 2 arguments"},
		{name: "bad header", args: []string{"lint", "-H", "nocolon", "x.json"}, code: ExitUsage, stderr: `want "Name: value"`},
		{name: "rules", args: []string{"lint", "--rules"}, code: ExitOK, stdout: []string{"preferred-url-mismatch", "binding-case", "url-plain-http"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout does not contain %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.noStdout {
				if strings.Contains(stdout, s) {
					t.Errorf("stdout contains %q:\n%s", s, stdout)
				}
			}
			if tc.stderr == "" && stderr != "" {
				t.Errorf("stderr = %q, want nothing", stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tc.stderr)
			}
			if strings.Contains(stdout+stderr, "\x1b[") {
				t.Errorf("colour escapes written to a non-terminal")
			}
		})
	}
}

func TestLintJSON(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "lint", "-o", "json", cardPath("seed-v03.json"))
	if code != ExitFailed {
		t.Fatalf("exit = %d, want %d", code, ExitFailed)
	}
	// Decode generically: the field names are the contract.
	var doc struct {
		OK   *bool `json:"ok"`
		Card struct {
			Shape      string           `json:"shape"`
			Interfaces []map[string]any `json:"interfaces"`
		} `json:"card"`
		Findings []map[string]string `json:"findings"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if doc.OK == nil || *doc.OK {
		t.Errorf("ok = %v, want false", doc.OK)
	}
	if doc.Card.Shape != "v0.3" {
		t.Errorf("card.shape = %q, want v0.3", doc.Card.Shape)
	}
	wantIface := map[string]any{"url": "https://agent.internal:8443", "binding": "grpc", "protocolVersion": "1.0",
		"source": "url+preferredTransport", "preferred": true}
	if len(doc.Card.Interfaces) != 3 {
		t.Fatalf("card.interfaces = %v, want 3", doc.Card.Interfaces)
	}
	if diff := cmp.Diff(wantIface, doc.Card.Interfaces[0]); diff != "" {
		t.Errorf("card.interfaces[0] (-want +got):\n%s", diff)
	}
	var got []string
	for _, f := range doc.Findings {
		if f["message"] == "" || f["fix"] == "" || f["severity"] == "" {
			t.Errorf("finding %v lacks message, fix or severity", f)
		}
		got = append(got, f["code"])
	}
	want := []string{"preferred-url-mismatch", "grpc-url-scheme", "grpc-url-scheme",
		"binding-case", "supported-interfaces-missing", "url-conflicting-bindings"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("finding codes (-want +got):\n%s", diff)
	}

	code, stdout, _ = runCLI(t, "", "lint", "-o", "json", cardPath("a2a-js-v1.json"))
	if code != ExitOK || !strings.Contains(stdout, `"ok": true`) || !strings.Contains(stdout, `"findings": []`) {
		t.Errorf("healthy card: exit %d, stdout:\n%s", code, stdout)
	}

	code, stdout, stderr := runCLI(t, "", "lint", "-o", "json", cardPath("truncated.json"))
	var failed lintOutput
	if err := json.Unmarshal([]byte(stdout), &failed); err != nil || code != ExitUsage || failed.OK || !strings.Contains(failed.Error, "truncated JSON") {
		t.Errorf("unloadable card: exit %d, %+v (%v), stderr %q", code, failed, err, stderr)
	}
}

// TestLintURL lints cards served by a real loopback server: by base URL, with a header.
func TestLintURL(t *testing.T) {
	healthy, err := os.ReadFile(cardPath("v1-healthy.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != card.WellKnownPath {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer x" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(healthy)
	}))
	t.Cleanup(srv.Close)

	if code, stdout, stderr := runCLI(t, "", "lint", srv.URL, "-H", "Authorization: Bearer x"); code != ExitOK {
		t.Errorf("lint %s = %d, want 0\n%s%s", srv.URL, code, stdout, stderr)
	}
	code, _, stderr := runCLI(t, "", "lint", srv.URL)
	if code != ExitUsage || !strings.Contains(stderr, "401 Unauthorized") {
		t.Errorf("lint without credentials = %d, stderr %q; want 2 and the 401", code, stderr)
	}
}

func TestColumnsAndStyle(t *testing.T) {
	got := style{}.tableLines(0, [][]string{{"a", "bbb", "c"}, {"dddd", "e", "f"}}, nil)
	want := [][]string{{"a     bbb  c"}, {"dddd  e    f"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tableLines() (-want +got):\n%s", diff)
	}
	// A regular file is not a terminal: no colour.
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st := newStyle(f); st.color || st.bad("x") != "x" {
		t.Errorf("newStyle(file) colours")
	}
	colored := style{color: true}
	if got := colored.severity(card.SeverityError); got != "\x1b[1;31merror\x1b[0m  " {
		t.Errorf("severity(error) = %q", got)
	}
	if got := countSeverities([]card.Finding{{Severity: card.SeverityError}, {Severity: card.SeverityError}, {Severity: card.SeverityInfo}}); got != "2 errors, 1 info" {
		t.Errorf("countSeverities() = %q", got)
	}
}
