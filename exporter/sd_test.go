package exporter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// sdGroup is a Prometheus HTTP SD target group, as /sd answers it.
type sdGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

// getSD reads /sd and returns its groups by target.
func getSD(t *testing.T, base string) map[string]map[string]string {
	t.Helper()
	resp, err := http.Get(base + "/sd")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/sd: %s, Content-Type %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	var groups []sdGroup
	if err := json.NewDecoder(resp.Body).Decode(&groups); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, g := range groups {
		if len(g.Targets) != 1 {
			t.Fatalf("group %+v: want one target per group", g)
		}
		if _, dup := out[g.Targets[0]]; dup {
			t.Errorf("target %s listed twice", g.Targets[0])
		}
		out[g.Targets[0]] = g.Labels
	}
	return out
}

// catalogServer serves body (with "{{base}}" its URL) as an AI Catalog at /catalog and
// counts the requests.
func catalogServer(t *testing.T, body *atomic.Value) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		b, _ := body.Load().(string)
		if r.URL.Path != "/catalog" || b == "" {
			http.Error(w, "no catalog", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/ai-catalog+json")
		fmt.Fprint(w, strings.ReplaceAll(b, "{{base}}", srv.URL))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func catalogDoc(entries ...string) string {
	return `{"specVersion": "1.0", "entries": [` + strings.Join(entries, ",") + `]}`
}

func agentEntry(id, name, url string) string {
	b, _ := json.Marshal(map[string]string{"identifier": id, "displayName": name, "type": "application/a2a-agent-card+json", "url": url})
	return string(b)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSD_FilesAndCatalogs: /sd lists a file's targets and a catalog's agents with
// labels naming the source and the entry; a changed file is read again at once, a
// catalog only after refresh_interval; a catalog that fails keeps its last listing
// and says so in /metrics; a target both list appears once.
func TestSD_FilesAndCatalogs(t *testing.T) {
	t.Parallel()
	var body atomic.Value
	body.Store(catalogDoc(agentEntry("urn:a", "Agent A", "{{base}}/a"), agentEntry("urn:dup", "", "http://127.0.0.1:9/shared")))
	cat, hits := catalogServer(t, &body)
	file := filepath.Join(t.TempDir(), "agents.txt")
	writeFile(t, file, "# fleet\nhttp://127.0.0.1:9/f1\nhttp://127.0.0.1:9/shared\n")
	cfg := mustConfig(t, fmt.Sprintf("discovery: {files: [%q], catalogs: [%q], refresh_interval: 1h}", file, cat.URL+"/catalog"))
	base := start(t, cfg)

	got := getSD(t, base)
	want := map[string]map[string]string{
		"http://127.0.0.1:9/f1":     {"__meta_a2abind_source": file, "__meta_a2abind_source_type": "file", "__meta_a2abind_file_line": "2"},
		"http://127.0.0.1:9/shared": {"__meta_a2abind_source": file, "__meta_a2abind_source_type": "file", "__meta_a2abind_file_line": "3"},
		cat.URL + "/a": {"__meta_a2abind_source": cat.URL + "/catalog", "__meta_a2abind_source_type": "ai_catalog",
			"__meta_a2abind_catalog": cat.URL + "/catalog", "__meta_a2abind_entry_identifier": "urn:a", "__meta_a2abind_entry_name": "Agent A"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("/sd:\n got %v\nwant %v", got, want)
	}

	// The file changes: read again. The catalog changes: not read before refresh_interval.
	time.Sleep(10 * time.Millisecond) // a distinct modification time on coarse file systems
	writeFile(t, file, "http://127.0.0.1:9/f2\n")
	body.Store(catalogDoc(agentEntry("urn:b", "", "{{base}}/b")))
	got = getSD(t, base)
	if _, ok := got["http://127.0.0.1:9/f2"]; !ok || len(got) != 3 || got[cat.URL+"/a"] == nil {
		t.Errorf("after the edits: %v; want f2 from the file and the catalog's cached listing", got)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the catalog was fetched %d times within refresh_interval, want 1", n)
	}
}

// TestSD_RefreshAndFailure: past refresh_interval the catalog is read again; when it
// fails, its last listing is kept and a2abind_discovery_source_up says 0.
func TestSD_RefreshAndFailure(t *testing.T) {
	t.Parallel()
	var body atomic.Value
	body.Store(catalogDoc(agentEntry("urn:a", "", "{{base}}/a")))
	cat, hits := catalogServer(t, &body)
	cfg := mustConfig(t, fmt.Sprintf("discovery: {catalogs: [%q], refresh_interval: 1ns}", cat.URL+"/catalog"))
	base := start(t, cfg)
	if got := getSD(t, base); got[cat.URL+"/a"] == nil {
		t.Fatalf("/sd %v", got)
	}
	body.Store(catalogDoc(agentEntry("urn:b", "", "{{base}}/b")))
	if got := getSD(t, base); got[cat.URL+"/b"] == nil || len(got) != 1 {
		t.Errorf("after refresh: %v, want only /b", got)
	}
	body.Store("")
	if got := getSD(t, base); got[cat.URL+"/b"] == nil {
		t.Errorf("catalog failing: %v, want its last listing kept", got)
	}
	if n := hits.Load(); n != 3 {
		t.Errorf("catalog fetched %d times, want 3", n)
	}
	_, _, fams := scrape(t, base, "/metrics")
	mustValue(t, fams, "a2abind_discovery_source_up", map[string]string{"source": cat.URL + "/catalog"}, 0)
	mustValue(t, fams, "a2abind_discovery_targets", map[string]string{"source": cat.URL + "/catalog", "state": "listed"}, 1)
}

// TestSD_Refused: entries that must not be probed are left out of /sd and counted:
// metadata addresses, unix:, paths (file: and relative), hosts outside
// allowed_targets, identifiers with control characters.
func TestSD_Refused(t *testing.T) {
	t.Parallel()
	var body atomic.Value
	body.Store(catalogDoc(
		agentEntry("ok", "", "{{base}}/ok"),
		agentEntry("metadata", "", "http://169.254.169.254/latest/meta-data/"),
		agentEntry("unix", "", "unix:///run/agent.sock"),
		agentEntry("file", "", "file:///etc/passwd"),
		agentEntry("relative", "", "../agents/x"),
		agentEntry("outside", "", "http://10.1.2.3/"),
		agentEntry("ctl\x1b[2J", "", "{{base}}/ctl"),
		agentEntry("name", "bell\a", "{{base}}/bell"),
	))
	cat, _ := catalogServer(t, &body)
	file := filepath.Join(t.TempDir(), "agents.txt")
	writeFile(t, file, "http://127.0.0.1:9/in-file\nhttp://169.254.169.254/\nhttps://elsewhere.example.com/\n")
	cfg := mustConfig(t, fmt.Sprintf(`
allowed_targets: ['http://127\.0\.0\.1:[0-9]+(/.*)?', 'http://169\.254\.169\.254(/.*)?']
discovery: {files: [%q], catalogs: [%q]}`, file, cat.URL+"/catalog"))
	base := start(t, cfg)
	got := getSD(t, base)
	if len(got) != 2 || got[cat.URL+"/ok"] == nil || got["http://127.0.0.1:9/in-file"] == nil {
		t.Errorf("/sd %v, want only the ok entry and the file's allowed line", got)
	}
	_, _, fams := scrape(t, base, "/metrics")
	mustValue(t, fams, "a2abind_discovery_targets", map[string]string{"source": cat.URL + "/catalog", "state": "refused"}, 7)
	mustValue(t, fams, "a2abind_discovery_targets", map[string]string{"source": file, "state": "refused"}, 2)
}

// TestSD_ConfigRefused: a catalog the config's policy refuses, a targets file that
// cannot be read or names a path, and misspelt keys stop the exporter at start.
func TestSD_ConfigRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := filepath.Join(dir, "paths.txt")
	writeFile(t, paths, "/etc/passwd\n")
	huge := filepath.Join(dir, "huge.txt")
	writeFile(t, huge, strings.Repeat("# padding line\n", 1_200_000))
	for _, tc := range []struct{ doc, want string }{
		{`discovery: {catalogs: ["http://169.254.169.254/catalog"]}`, "link-local"},
		{`discovery: {catalogs: ["file:///etc/catalog.json"]}`, "not an http:// or https:// URL"},
		{"allowed_targets: ['https://a\\.example\\.com/.*']\ndiscovery: {catalogs: [\"https://b.example.com/catalog\"]}", "matches none of allowed_targets"},
		{`discovery: {files: ["` + filepath.Join(dir, "missing.txt") + `"]}`, "no such file"},
		{`discovery: {files: ["` + paths + `"]}`, "line 1"},
		{`discovery: {files: ["` + huge + `"]}`, "over 16777216 bytes"},
		{`discovery: {files: ["/dev/zero"]}`, "not a regular file"},
		{`discovery: {files: ["` + dir + `"]}`, "not a regular file"},
		{`discovery: {catalog: ["https://a.example.com"]}`, `did you mean "catalogs"?`},
		{`discovery: {refresh-interval: 1m}`, `did you mean "refresh_interval"?`},
		{`discovry: {files: []}`, `did you mean "discovery"?`},
	} {
		_, err := exporter.ParseConfig([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.doc, err, tc.want)
		}
	}
}

// TestSD_HostileCatalogs: through /sd, an endless catalog, one that redirects to
// another origin and one whose entries nest without end are each bounded: /sd answers
// with what the other sources list, the source is down on /metrics, and the other
// origin receives nothing.
func TestSD_HostileCatalogs(t *testing.T) {
	t.Parallel()
	other := labtest.StartOrigin(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, catalogDoc(agentEntry("planted", "", "http://127.0.0.2:1/")))
	}))
	mux := http.NewServeMux()
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"entries": [`)
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, agentEntry("x", "", "http://127.0.0.1:9/x")+","); err != nil {
				return
			}
		}
	})
	mux.Handle("/away", labtest.RedirectTo(other.URL, http.StatusFound))
	var srv *httptest.Server
	mux.HandleFunc("/deep/", func(w http.ResponseWriter, r *http.Request) { // /deep/N lists /deep/N+1
		fmt.Fprint(w, catalogDoc(agentEntry(r.URL.Path, "", "http://127.0.0.1:9"+r.URL.Path),
			`{"identifier": "next", "type": "application/ai-catalog+json", "url": "`+srv.URL+r.URL.Path+`/d"}`))
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	file := filepath.Join(t.TempDir(), "agents.txt")
	writeFile(t, file, "http://127.0.0.1:9/from-file\n")
	cfg := mustConfig(t, fmt.Sprintf("discovery: {files: [%q], catalogs: [%q, %q, %q]}", file, srv.URL+"/endless", srv.URL+"/away", srv.URL+"/deep/0"))
	base := start(t, cfg)
	got := getSD(t, base)
	if got["http://127.0.0.1:9/from-file"] == nil || len(got) != 6 { // the file's, and /deep/0 to depth 4
		t.Errorf("/sd %v, want the file's target and the 5 agents of /deep to depth 4", got)
	}
	_, _, fams := scrape(t, base, "/metrics")
	for _, src := range []string{"/endless", "/away"} {
		mustValue(t, fams, "a2abind_discovery_source_up", map[string]string{"source": srv.URL + src}, 0)
	}
	mustValue(t, fams, "a2abind_discovery_targets", map[string]string{"source": srv.URL + "/deep/0", "state": "refused"}, 1)
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the other origin received %d requests", n)
	}
}

// TestSD_TenThousandAgents: a catalog of 10,000 agents is listed whole, and the heap
// /sd holds for it stays bounded (measured, not timed).
func TestSD_TenThousandAgents(t *testing.T) {
	entries := make([]string, 10_000)
	for i := range entries {
		entries[i] = agentEntry(fmt.Sprintf("urn:agent:%d", i), fmt.Sprintf("Agent %d", i), fmt.Sprintf("http://127.0.0.1:9/agents/%d", i))
	}
	var body atomic.Value
	body.Store(catalogDoc(entries...))
	cat, _ := catalogServer(t, &body)
	base := start(t, mustConfig(t, fmt.Sprintf("discovery: {catalogs: [%q]}", cat.URL+"/catalog")))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := getSD(t, base)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(got) != 10_000 {
		t.Fatalf("/sd listed %d agents, want 10,000", len(got))
	}
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("10,000 agents: catalog %d bytes, heap held after /sd %+d KiB (test's own map included)", len(body.Load().(string)), held>>10)
	if held > 64<<20 {
		t.Errorf("the heap grew by %d MiB for 10,000 agents", held>>20)
	}
}

// TestSD_MaxTargets: max_targets bounds /sd over all sources, files first.
func TestSD_MaxTargets(t *testing.T) {
	t.Parallel()
	var body atomic.Value
	body.Store(catalogDoc(agentEntry("c1", "", "{{base}}/c1"), agentEntry("c2", "", "{{base}}/c2")))
	cat, _ := catalogServer(t, &body)
	file := filepath.Join(t.TempDir(), "agents.txt")
	writeFile(t, file, "http://127.0.0.1:9/f1\nhttp://127.0.0.1:9/f2\nhttp://127.0.0.1:9/f3\n")
	base := start(t, mustConfig(t, fmt.Sprintf("discovery: {files: [%q], catalogs: [%q], max_targets: 4}", file, cat.URL+"/catalog")))
	got := getSD(t, base)
	if len(got) != 4 || got["http://127.0.0.1:9/f3"] == nil || got[cat.URL+"/c1"] == nil {
		t.Errorf("/sd %v, want the file's 3 targets and the catalog's first", got)
	}
}

// TestSD_InlineCard: a catalog entry with an inline card is listed as CATALOG#identifier,
// and /probe of that name probes the card as the catalog gave it to /sd, with no fetch.
func TestSD_InlineCard(t *testing.T) {
	t.Parallel()
	healthy := labtest.Start(t, lab.Healthy()...)
	inline, err := json.Marshal(lab.V1Card("inline", lab.Decl{URL: healthy.BaseURL + "/a2a/jsonrpc", Binding: lab.JSONRPC, Version: "1.0"}))
	if err != nil {
		t.Fatal(err)
	}
	var body atomic.Value
	body.Store(catalogDoc(`{"identifier": "urn:inline", "type": "application/a2a-agent-card+json", "data": `+string(inline)+`}`,
		`{"identifier": "urn:broken", "type": "application/a2a-agent-card+json", "data": {"supportedInterfaces": 7}}`))
	cat, hits := catalogServer(t, &body)
	base := start(t, mustConfig(t, fmt.Sprintf("discovery: {catalogs: [%q]}", cat.URL+"/catalog")))
	got := getSD(t, base)
	name := cat.URL + "/catalog#urn:inline"
	if got[name]["__meta_a2abind_entry_inline"] != "true" {
		t.Fatalf("/sd %v, want %s listed as inline", got, name)
	}
	_, _, fams := scrape(t, base, probePath(name))
	mustValue(t, fams, "probe_success", nil, 1)
	mustValue(t, fams, "a2abind_interface_up", ifaceLabels(healthy.BaseURL+"/a2a/jsonrpc", "JSONRPC", "1.0"), 1)
	_, _, fams = scrape(t, base, probePath(cat.URL+"/catalog#urn:broken"))
	mustValue(t, fams, "a2abind_card_fetch_success", nil, 0)
	if n := hits.Load(); n != 1 {
		t.Errorf("the catalog was fetched %d times, want 1 (by /sd; /probe reads the inline card /sd keeps)", n)
	}
}
