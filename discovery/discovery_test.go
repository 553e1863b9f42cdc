package discovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/discovery"
	"github.com/a2abind/a2abind/lab/labtest"
)

// docs serves catalog documents by path on a loopback server; "{{base}}" in a body is
// the server's own URL. A path given with a "ctype " prefix line sets Content-Type.
func docs(t *testing.T, files map[string]string) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		ctype := "application/json"
		if rest, found := strings.CutPrefix(body, "ctype "); found {
			ctype, body, _ = strings.Cut(rest, "\n")
		}
		w.Header().Set("Content-Type", ctype)
		fmt.Fprint(w, strings.ReplaceAll(body, "{{base}}", srv.URL))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func discover(t *testing.T, u string, o discovery.Options) (discovery.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return discovery.Catalog(ctx, u, o)
}

// TestCatalogFollowsEntries: an AI Catalog's agents (by url and inline), a nested AI
// Catalog and a nested RFC 9727 linkset are found; other types are ignored.
func TestCatalogFollowsEntries(t *testing.T) {
	t.Parallel()
	srv := docs(t, map[string]string{
		"/.well-known/ai-catalog.json": `{"specVersion": "1.0", "entries": [
			{"identifier": "urn:a", "displayName": "Agent A", "type": "application/a2a-agent-card+json", "url": "{{base}}/a"},
			{"identifier": "urn:mcp", "type": "application/mcp-server+json", "url": "{{base}}/mcp"},
			{"identifier": "urn:inline", "displayName": "Inline", "type": "application/a2a-agent-card+json; charset=utf-8", "data": {"name": "x"}},
			{"identifier": "urn:sub", "type": "application/ai-catalog+json", "url": "{{base}}/sub.json"},
			{"identifier": "urn:links", "type": "application/linkset+json", "url": "{{base}}/.well-known/api-catalog"}
		]}`,
		"/sub.json": `{"specVersion": "1.0", "entries": [
			{"identifier": "urn:b", "type": "application/a2a-agent-card+json", "url": "{{base}}/b"},
			{"identifier": "urn:a-again", "type": "application/a2a-agent-card+json", "url": "{{base}}/a"}
		]}`,
		"/.well-known/api-catalog": "ctype application/linkset+json\n" + `{"linkset": [
			{"anchor": "{{base}}/.well-known/api-catalog", "item": [
				{"href": "{{base}}/c/.well-known/agent-card.json", "type": "application/a2a-agent-card+json", "title": "Agent C"},
				{"href": "{{base}}/openapi.yaml", "type": "application/yaml"}
			]},
			{"anchor": "{{base}}/d", "service-desc": [{"href": "{{base}}/d/.well-known/agent-card.json", "type": "application/a2a-agent-card+json"}]}
		]}`,
	})
	res, err := discover(t, srv.URL+"/.well-known/ai-catalog.json", discovery.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root, sub, links := srv.URL+"/.well-known/ai-catalog.json", srv.URL+"/sub.json", srv.URL+"/.well-known/api-catalog"
	want := []discovery.Agent{
		{Target: srv.URL + "/a", Catalog: root, CatalogType: discovery.TypeAICatalog, Identifier: "urn:a", DisplayName: "Agent A"},
		{Target: root + "#urn:inline", Card: []byte(`{"name": "x"}`), Catalog: root, CatalogType: discovery.TypeAICatalog, Identifier: "urn:inline", DisplayName: "Inline"},
		{Target: srv.URL + "/b", Catalog: sub, CatalogType: discovery.TypeAICatalog, Identifier: "urn:b"},
		{Target: srv.URL + "/c/.well-known/agent-card.json", Catalog: links, CatalogType: discovery.TypeLinkset, Identifier: links, DisplayName: "Agent C"},
		{Target: srv.URL + "/d/.well-known/agent-card.json", Catalog: links, CatalogType: discovery.TypeLinkset, Identifier: srv.URL + "/d"},
	}
	if d := cmp.Diff(want, res.Agents); d != "" {
		t.Errorf("agents (-want +got):\n%s", d)
	}
	if len(res.Refused) != 0 || res.Ignored != 2 || res.Repeats != 1 || res.Documents != 3 {
		t.Errorf("refused %v, ignored %d (want 2), repeats %d (want 1), documents %d (want 3)", res.Refused, res.Ignored, res.Repeats, res.Documents)
	}
}

// TestCatalogRefusesEntries: each entry that must not be probed is refused with its
// reason, and the others are still listed.
func TestCatalogRefusesEntries(t *testing.T) {
	t.Parallel()
	entry := func(id, url string) string {
		b, _ := json.Marshal(map[string]string{"identifier": id, "type": "application/a2a-agent-card+json", "url": url})
		return string(b)
	}
	entries := []string{
		entry("ok", "{{base}}/ok"),
		entry("metadata", "http://169.254.169.254/latest/meta-data/"),
		entry("metadata-name", "http://metadata.google.internal/"),
		entry("unix", "unix:///run/agent.sock"),
		entry("file", "file:///etc/passwd"),
		entry("relative", "/agents/x"),
		entry("bare-path", "agents.txt"),
		entry("userinfo", "http://user:pw@127.0.0.1:1/"),
		entry("elsewhere", "http://127.0.0.3:1/"),
		entry("ctl\u001b[31mred", "{{base}}/ctl"),
		entry("newline\nid", "{{base}}/nl"),
		entry("nourl", ""),
		`{"identifier": "nested-metadata", "type": "application/ai-catalog+json", "url": "http://169.254.169.254/catalog"}`,
	}
	srv := docs(t, map[string]string{"/cat": `{"specVersion": "1.0", "entries": [` + strings.Join(entries, ",") + `]}`})
	allow := func(u string) error {
		if strings.HasPrefix(u, "http://127.0.0.1:") {
			return nil
		}
		return errors.New("matches none of allowed_targets")
	}
	res, err := discover(t, srv.URL+"/cat", discovery.Options{Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Agents) != 1 || res.Agents[0].Identifier != "ok" {
		t.Errorf("agents %+v, want only \"ok\"", res.Agents)
	}
	want := map[string]string{
		"metadata":        "link-local address",
		"metadata-name":   "cloud instance-metadata",
		"unix":            "is not an http:// or https:// URL",
		"file":            "is not an http:// or https:// URL",
		"relative":        "is not an http:// or https:// URL",
		"bare-path":       "is not an http:// or https:// URL",
		"userinfo":        "user:password@",
		"elsewhere":       "matches none of allowed_targets",
		srv.URL + "/ctl":  "control character",
		srv.URL + "/nl":   "control character",
		"nourl":           "neither a url nor an inline card",
		"nested-metadata": "link-local address",
	}
	got := map[string]string{}
	for _, r := range res.Refused {
		if !errors.Is(r.Err, discovery.ErrRefused) {
			t.Errorf("%s: %v does not wrap ErrRefused", r.Entry, r.Err)
		}
		got[r.Entry] = r.Err.Error()
	}
	for name, reason := range want {
		if !strings.Contains(got[name], reason) {
			t.Errorf("entry %q: refusal %q, want one saying %q", name, got[name], reason)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d refusals, want %d: %v", len(got), len(want), got)
	}
}

// TestCatalogNestingBounded: a chain of nested catalogs stops at MaxDepth with a
// refusal; a cycle is read once.
func TestCatalogNestingBounded(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("/c%d", i)] = fmt.Sprintf(`{"entries": [
			{"identifier": "agent%d", "type": "application/a2a-agent-card+json", "url": "{{base}}/agent%d"},
			{"identifier": "next%d", "type": "application/ai-catalog+json", "url": "{{base}}/c%d"},
			{"identifier": "root", "type": "application/ai-catalog+json", "url": "{{base}}/c0"}]}`, i, i, i, i+1)
	}
	srv := docs(t, files)
	res, err := discover(t, srv.URL+"/c0", discovery.Options{MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Agents) != 4 || res.Documents != 4 {
		t.Errorf("%d agents from %d documents, want 4 from 4 (depth 0 to 3)", len(res.Agents), res.Documents)
	}
	if len(res.Refused) != 1 || !strings.Contains(res.Refused[0].Error(), "deeper than 3 catalogs") {
		t.Errorf("refused %v, want the catalog at depth 4 refused", res.Refused)
	}
	if res.Repeats != 4 { // each catalog lists c0 again
		t.Errorf("repeats %d, want 4", res.Repeats)
	}
}

// TestCatalogEntriesBounded: 10,000 entries are read; one more is refused as a whole.
func TestCatalogEntriesBounded(t *testing.T) {
	t.Parallel()
	build := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"specVersion": "1.0", "entries": [`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"identifier": "a%d", "type": "application/a2a-agent-card+json", "url": "http://127.0.0.1:1/a%d"}`, i, i)
		}
		b.WriteString("]}")
		return b.String()
	}
	srv := docs(t, map[string]string{"/10000": build(10_000), "/10001": build(10_001)})
	res, err := discover(t, srv.URL+"/10000", discovery.Options{})
	if err != nil || len(res.Agents) != 10_000 {
		t.Fatalf("10,000 entries: %d agents, err %v", len(res.Agents), err)
	}
	_, err = discover(t, srv.URL+"/10001", discovery.Options{})
	if !errors.Is(err, discovery.ErrCatalog) || !strings.Contains(err.Error(), "10001 elements, over the bound of 10000") {
		t.Errorf("10,001 entries: %v, want the catalog refused for its size", err)
	}
}

// TestCatalogHostileServers: an endless body, a huge declared body, a slow answer, a
// redirect to another origin, an HTML page and a loop of redirects each end with a
// clear error, within the bounds.
func TestCatalogHostileServers(t *testing.T) {
	t.Parallel()
	other := labtest.StartOrigin(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"entries": [{"identifier": "planted", "type": "application/a2a-agent-card+json", "url": "http://127.0.0.2:1/"}]}`)
	}))
	mux := http.NewServeMux()
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"entries": [`))
		for r.Context().Err() == nil {
			if _, err := w.Write([]byte(`{"identifier": "x", "type": "t", "url": "http://h/"},`)); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "1073741824")
		w.Write([]byte(`{"entries": []`))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"entries": [`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.Handle("/away", labtest.RedirectTo(other.URL, http.StatusFound))
	mux.HandleFunc("/html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>login</body></html>")
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/dup", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"entries": [{"identifier": "a", "type": "application/a2a-agent-card+json", "url": "http://127.0.0.1:1/", "URL": "http://169.254.169.254/"}]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	for _, tc := range []struct{ path, want string }{
		{"/endless", "over the 65536-byte limit"},
		{"/huge", "1073741824 bytes, over the 65536-byte limit"},
		{"/slow", "no complete answer within 500ms"},
		{"/away", "leaves the catalog's origin"},
		{"/html", "an HTML page"},
		{"/loop", "redirected more than 3 times"},
		{"/dup", `"URL" differs from "url" only in case`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			res, err := discover(t, srv.URL+tc.path, discovery.Options{MaxBytes: 64 << 10, Timeout: 500 * time.Millisecond})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
			if len(res.Agents) != 0 {
				t.Errorf("agents %v from a refused catalog", res.Agents)
			}
		})
	}
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the other origin received %d requests, want 0", n)
	}
}

// TestCatalogURLRefused: the catalog URL itself goes through the same checks.
func TestCatalogURLRefused(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://169.254.169.254/catalog", "file:///etc/passwd", "catalog.json", "unix:///x.sock"} {
		if _, err := discover(t, u, discovery.Options{}); !errors.Is(err, discovery.ErrRefused) {
			t.Errorf("%s: %v, want ErrRefused", u, err)
		}
	}
}

// TestCatalogOfASite: a URL without a path reads the site's AI Catalog, or its RFC 9727
// API catalog when there is no AI Catalog, or says both are missing.
func TestCatalogOfASite(t *testing.T) {
	t.Parallel()
	agent := `{"identifier": "a", "type": "application/a2a-agent-card+json", "url": "{{base}}/a"}`
	ai := docs(t, map[string]string{discovery.AICatalogPath: `{"entries": [` + agent + `]}`})
	api := docs(t, map[string]string{discovery.APICatalogPath: `{"linkset": [{"item": [{"href": "{{base}}/a", "type": "application/a2a-agent-card+json"}]}]}`})
	none := docs(t, map[string]string{})
	for _, srv := range []*httptest.Server{ai, api} {
		res, err := discover(t, srv.URL+"/", discovery.Options{})
		if err != nil || len(res.Agents) != 1 || res.Agents[0].Target != srv.URL+"/a" {
			t.Errorf("%s: %+v, %v; want its agent", srv.URL, res.Agents, err)
		}
	}
	_, err := discover(t, none.URL, discovery.Options{})
	if err == nil || !strings.Contains(err.Error(), discovery.AICatalogPath) || !strings.Contains(err.Error(), discovery.APICatalogPath) {
		t.Errorf("a site without catalogs: %v, want both paths named", err)
	}
}

// TestParseKind: the document's member decides what it is; the Content-Type only
// breaks a tie, and a document that is neither is refused.
func TestParseKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, ctype, want string }{
		{`{"entries": []}`, discovery.TypeLinkset, discovery.TypeAICatalog},
		{`{"linkset": []}`, discovery.TypeAICatalog, discovery.TypeLinkset},
		{`{"linkset": [], "entries": []}`, discovery.TypeLinkset + "; charset=utf-8", discovery.TypeLinkset},
		{`{"linkset": [], "entries": []}`, "application/json", ""},
		{`{"name": "an agent card"}`, discovery.TypeAICatalog, ""},
		{`{"entries": [], "Entries": []}`, "", ""},
	} {
		d, err := discovery.Parse([]byte(tc.doc), tc.ctype, 0)
		if d.Type != tc.want || (tc.want == "") != errors.Is(err, discovery.ErrCatalog) {
			t.Errorf("%s as %q: %q, %v; want %q", tc.doc, tc.ctype, d.Type, err, tc.want)
		}
	}
}
