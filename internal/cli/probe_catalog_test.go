package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// serveCatalog serves an AI Catalog (with "{{base}}" replaced by its own URL) at
// /.well-known/ai-catalog.json, a nested one at /sub.json, and records the headers
// each request carried.
func serveCatalog(t *testing.T, root, sub string) (*httptest.Server, *[]http.Header) {
	t.Helper()
	var seen []http.Header
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Clone())
		body := map[string]string{"/.well-known/ai-catalog.json": root, "/sub.json": sub}[r.URL.Path]
		if body == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/ai-catalog+json")
		fmt.Fprint(w, strings.ReplaceAll(body, "{{base}}", srv.URL))
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func agentEntry(id, url string) string {
	return fmt.Sprintf(`{"identifier": %q, "type": "application/a2a-agent-card+json", "url": %q}`, id, url)
}

// TestProbeCatalog_JSON: every agent the catalog and its nested catalog list is probed
// (by URL and from an inline card), with one JSON line each; a refused entry is a line
// with the reason; the exit status is 1 as a target fails.
func TestProbeCatalog_JSON(t *testing.T) {
	t.Parallel()
	healthy, seed, closed := fleet(t)
	inline, err := json.Marshal(lab.V1Card("inline", lab.Decl{URL: healthy.BaseURL + "/a2a/jsonrpc", Binding: lab.JSONRPC, Version: "1.0"}))
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := serveCatalog(t, `{"specVersion": "1.0", "entries": [`+strings.Join([]string{
		agentEntry("healthy", healthy.BaseURL),
		agentEntry("metadata", "http://169.254.169.254/"),
		`{"identifier": "tools", "type": "application/mcp-server+json", "url": "http://127.0.0.1:1/"}`,
		`{"identifier": "sub", "type": "application/ai-catalog+json", "url": "{{base}}/sub.json"}`,
		`{"identifier": "inline", "type": "application/a2a-agent-card+json", "data": ` + string(inline) + `}`,
	}, ",")+`]}`, `{"specVersion": "1.0", "entries": [`+agentEntry("seed", seed.BaseURL)+","+agentEntry("closed", closed)+`]}`)
	code, stdout, stderr := probeCLI(t, "", "probe", "--catalog", srv.URL+"/.well-known/ai-catalog.json", "-o", "json", "--timeout", "20s")
	if code != ExitFailed {
		t.Fatalf("exit = %d, want %d; stderr %s", code, ExitFailed, stderr)
	}
	got := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got[rec["target"].(string)] = rec
	}
	inlineName := srv.URL + "/.well-known/ai-catalog.json#inline"
	for target, ok := range map[string]bool{healthy.BaseURL: true, seed.BaseURL: false, closed: false, "metadata": false, inlineName: true} {
		rec, found := got[target]
		if !found {
			t.Errorf("no line for %s:\n%s", target, stdout)
			continue
		}
		if rec["ok"] != ok {
			t.Errorf("%s: ok %v, want %v: %v", target, rec["ok"], ok, rec)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d lines, want 5:\n%s", len(got), stdout)
	}
	if e, _ := got["metadata"]["error"].(string); !strings.Contains(e, "not probed") || !strings.Contains(e, "link-local") {
		t.Errorf("metadata entry error %q, want the refusal", e)
	}
	if n := len(got[inlineName]["interfaces"].([]any)); n != 1 {
		t.Errorf("inline card: %d interfaces probed, want 1", n)
	}
}

// TestProbeCatalog_Text: the text report has a row per agent and the totals.
func TestProbeCatalog_Text(t *testing.T) {
	t.Parallel()
	healthy := labtest.Start(t, lab.Healthy()...)
	srv, _ := serveCatalog(t, `{"specVersion": "1.0", "entries": [`+agentEntry("healthy", healthy.BaseURL)+`]}`, "")
	code, stdout, stderr := probeCLI(t, "", "probe", "--catalog", srv.URL+"/.well-known/ai-catalog.json", "--timeout", "20s")
	if code != ExitOK {
		t.Fatalf("exit = %d, want 0; stderr %s\n%s", code, stderr, stdout)
	}
	lines := strings.Split(stdout, "\n")
	if got := strings.Fields(lines[1]); len(got) < 3 || !slices.Equal(got[:3], []string{healthy.BaseURL, "ok", "3/3"}) {
		t.Errorf("row %q", lines[1])
	}
	if !strings.Contains(stdout, "1 target: 1 ok, 0 failing, 0 without a card") {
		t.Errorf("no totals:\n%s", stdout)
	}
}

// TestProbeCatalog_Refused: a catalog that cannot be read, or lists no agent, exits 2
// with the reason; headers do not go to agents the catalog places on another host.
func TestProbeCatalog_Refused(t *testing.T) {
	t.Parallel()
	empty, _ := serveCatalog(t, `{"specVersion": "1.0", "entries": [{"identifier": "x", "type": "text/plain", "url": "http://127.0.0.1:1/"}]}`, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--catalog", "http://169.254.169.254/catalog"}, "link-local"},
		{[]string{"--catalog", "catalog.json"}, "is not an http:// or https:// URL"},
		{[]string{"--catalog", empty.URL + "/nothing"}, "404"},
		{[]string{"--catalog", empty.URL + "/.well-known/ai-catalog.json"}, "lists no A2A agent"},
		{[]string{"--catalog", empty.URL, "--targets", "x"}, "not both"},
		{[]string{"--catalog", empty.URL, "http://a"}, "takes no TARGET"},
	} {
		code, _, stderr := probeCLI(t, "", append([]string{"probe"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d saying %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}

	attacker := labtest.StartOrigin(t, "127.0.0.2", http.NotFoundHandler())
	srv, seen := serveCatalog(t, `{"specVersion": "1.0", "entries": [`+agentEntry("planted", attacker.URL)+`]}`, "")
	code, stdout, _ := probeCLI(t, "", "probe", "--catalog", srv.URL+"/.well-known/ai-catalog.json", "-H", "Authorization: Bearer s3cret", "-o", "json")
	if code != ExitFailed || !strings.Contains(stdout, "not on the catalog's origin") {
		t.Errorf("exit %d, output %s; want the planted agent refused", code, stdout)
	}
	if n := len(attacker.Requests()); n != 0 {
		t.Errorf("the agent on another host received %d requests", n)
	}
	if len(*seen) == 0 || (*seen)[0].Get("Authorization") != "Bearer s3cret" {
		t.Errorf("the catalog's origin got headers %v, want the Authorization given", *seen)
	}
}
