package exporter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// get is one GET returning the status, the body and its Content-Type.
func get(t *testing.T, u string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header.Get("Content-Type")
}

// TestProbe_Debug: debug=true answers text/plain with the probe's log (each
// interface's outcome and evidence, the findings), the series the scrape would have
// returned and the module, with header names but never their values; what the card
// says is escaped, never written raw.
func TestProbe_Debug(t *testing.T) {
	t.Setenv("A2ABIND_TEST_TOKEN", token)
	a := labtest.Start(t, append(lab.Healthy(), lab.WithAuth("s3cret-token"))...)
	cfg := mustConfig(t, `
modules:
  default:
    credential_hosts: [127.0.0.1]
    headers: {Authorization: {env: A2ABIND_TEST_TOKEN}}
`)
	base := start(t, cfg)
	status, body, ctype := get(t, base+probePath(a.BaseURL)+"&debug=true")
	if status != 200 || ctype != "text/plain; charset=utf-8" {
		t.Fatalf("status %d, Content-Type %q: %s", status, ctype, body)
	}
	for _, want := range []string{
		"Logs for the probe:\n", `msg="beginning probe" target=` + a.BaseURL, `msg="card fetched"`,
		`msg=interface url=` + a.URL(lab.PathJSONRPC) + ` binding=JSONRPC protocol_version=1.0 outcome=served`,
		`msg="probe ended" result=success success=true`,
		"\n\nMetrics that would have been returned:\n", "\nprobe_success 1\n",
		`a2abind_interface_up{binding="GRPC"`,
		"\n\nModule configuration:\n", `headers (values not shown): ["Authorization"]`, `credential_hosts: ["127.0.0.1"]`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the debug output lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "s3cret") {
		t.Error("the debug output shows the token")
	}

	// A hostile card: its name and URLs carry terminal escapes and line breaks.
	hostile, _ := json.Marshal(lab.V1Card("evil\x1b[2J\nname\u202e", lab.Decl{URL: "http://127.0.0.1:1/a\x1b]0;pwned\x07\n", Binding: lab.JSONRPC, Version: "1.0"}))
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(hostile)
	}))
	t.Cleanup(cards.Close)
	_, body, _ = get(t, start(t, nil)+probePath(cards.URL)+"&debug=1")
	if strings.ContainsAny(body, "\x1b\x07\u202e") {
		t.Errorf("the debug output holds raw control characters:\n%q", body)
	}
	if !strings.Contains(body, `\x1b[2J`) && !strings.Contains(body, `\u001b[2J`) {
		t.Errorf("the escaped card name is missing:\n%s", body)
	}
}

// TestRecentProbes: / lists the recent probes newest first with links to their debug
// output, which /logs?id=N serves; the ring keeps the last 100 only.
func TestRecentProbes(t *testing.T) {
	t.Parallel()
	healthy := labtest.Start(t, lab.Healthy()...)
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := start(t, nil)
	if status, body, _ := scrape(t, base, "/"); status != 200 || !strings.Contains(body, "No probe yet") {
		t.Errorf("GET / before any probe = %d %q", status, body)
	}
	for i := range 104 {
		scrape(t, base, probePath(fmt.Sprintf("http://%s/n%d", closed, i)))
	}
	scrape(t, base, probePath(healthy.BaseURL))
	_, page, _ := scrape(t, base, "/")
	rows := regexp.MustCompile(`<a href="logs\?id=(\d+)">`).FindAllStringSubmatch(page, -1)
	if len(rows) != 100 {
		t.Fatalf("/ lists %d probes, want the last 100", len(rows))
	}
	if rows[0][1] != "105" || rows[99][1] != "6" {
		t.Errorf("/ lists ids %s..%s, want 105 (newest) to 6", rows[0][1], rows[99][1])
	}
	first := page[strings.Index(page, "<tbody>"):]
	first = first[:strings.Index(first, "</tr>")]
	if !strings.Contains(first, healthy.BaseURL) || !strings.Contains(first, `class="success"`) {
		t.Errorf("the newest row is not the healthy probe: %s", first)
	}
	if status, logs, _ := get(t, base+"/logs?id=105"); status != 200 || !strings.Contains(logs, `msg="probe ended" result=success`) {
		t.Errorf("/logs?id=105 = %d %q", status, logs)
	}
	if status, logs, _ := get(t, base+"/logs?id=6"); status != 200 || !strings.Contains(logs, "result=no_card") {
		t.Errorf("/logs?id=6 = %d %q", status, logs)
	}
	for path, want := range map[string]int{"/logs?id=5": 404, "/logs?id=x": 400, "/nope": 404} {
		if status, _, _ := get(t, base+path); status != want {
			t.Errorf("GET %s = %d, want %d", path, status, want)
		}
	}
}

// TestRecentProbesInChromium loads / in headless Chromium (Debian's chromium package,
// installed as Prometheus is) and reads the DOM it built: the recent probes' table
// with the target (escaped markup in a target stays text) and the link to the logs.
func TestRecentProbesInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Chromium")
	}
	bin := debianBinary(t, "chromium", "chromium")
	healthy := labtest.Start(t, lab.Healthy()...)
	base := start(t, nil)
	scrape(t, base, probePath(healthy.BaseURL))
	markup := healthy.BaseURL + "/?<b>x</b>"
	scrape(t, base, probePath(markup))

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--dump-dom", base+"/")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("chromium --dump-dom %s: %v\n%s", base, err, tail(stderr))
	}
	dom := string(out)
	for _, want := range []string{
		`<h1>a2abind exporter</h1>`, `<table id="recent">`,
		`<td class="target">` + healthy.BaseURL + `</td><td class="success">success</td>`,
		`<a href="logs?id=1">logs</a>`, `<a href="logs?id=2">logs</a>`,
		`&lt;b&gt;x&lt;/b&gt;`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page Chromium built lacks %s:\n%s", want, dom)
		}
	}
	if strings.Contains(dom, "<b>x</b>") {
		t.Error("a target's markup became part of the page")
	}
}

// TestDebugQuotesOnce: the seed agent's gRPC evidence holds grpc-go's own quotes
// (desc = "..."); the debug output's log line quotes the evidence once more, and the
// reader sees each quote escaped once, never \\\" (a quote escaped two levels deep).
func TestDebugQuotesOnce(t *testing.T) {
	seed := labtest.Start(t, lab.Seed()...)
	base := start(t, nil)
	resp, err := http.Get(base + probePath(seed.BaseURL) + "&debug=true")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(raw)
	if !strings.Contains(body, "error reading server preface") {
		t.Fatalf("no gRPC preface evidence in the debug output:\n%s", body)
	}
	if strings.Contains(body, `\\\"`) {
		t.Errorf("the debug output escapes a quote two levels deep:\n%s", body)
	}
}
