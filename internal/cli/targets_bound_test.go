package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestProbeTargets_OnlyURLs: a targets file names agents by URL. A local path (or a
// file: URL, or a scheme card.Load would read as a path) is an error naming the line,
// and the file it names is not read: its bytes appear nowhere.
func TestProbeTargets_OnlyURLs(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(secret, []byte(`{"name":"TOPSECRET-CONTENT"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{secret, "file://" + secret, "./card.json", "HTTP://127.0.0.1:1", "http://", "ftp://example.com/card.json"} {
		file := writeTargetsFile(t, "# fleet", "http://127.0.0.1:1", line)
		code, stdout, stderr := probeCLI(t, "", "probe", "--targets", file)
		if code != ExitUsage || !strings.Contains(stderr, "line 3: ") {
			t.Errorf("%q: exit %d, stderr %q; want %d naming line 3", line, code, stderr, ExitUsage)
		}
		if strings.Contains(stdout+stderr, "TOPSECRET") {
			t.Errorf("%q: the output shows the local file's content", line)
		}
	}
}

// rowWatcher is a stdout that closes seen once a line containing want arrives.
type rowWatcher struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	once sync.Once
	seen chan struct{}
}

func (w *rowWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// TestProbeTargets_RowsAsTheyFinish: in text mode a target's row is printed when it
// finishes, not kept for the end: the slow target's card is answered only once the
// fast target's row is on standard output, so the slow one is ok only if the rows
// stream (otherwise it times out).
func TestProbeTargets_RowsAsTheyFinish(t *testing.T) {
	t.Parallel()
	healthy, _, closed := fleet(t)
	out := &rowWatcher{want: closed + "  NO CARD", seen: make(chan struct{})}
	proxy := labtest.Proxy(t, healthy.BaseURL)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-out.seen:
		case <-r.Context().Done():
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(slow.Close)
	var errOut bytes.Buffer
	code := run(t.Context(), []string{"probe", "--targets", "-", "--timeout", "20s", "--concurrency", "2"},
		strings.NewReader(slow.URL+"\n"+closed+"\n"), out, &errOut)
	if code != ExitFailed {
		t.Fatalf("exit %d, want 1 (the closed target); stderr %s", code, errOut.String())
	}
	if !strings.Contains(out.buf.String(), slow.URL+"  ok") {
		t.Errorf("the slow target is not ok: its card was answered only after the other row was printed\n%s", out.buf.String())
	}
}

// TestProbeTargets_DetailsCapped: the reports of only the first 20 failing targets are
// kept and printed; the rest are counted.
func TestProbeTargets_DetailsCapped(t *testing.T) {
	t.Parallel()
	seed := labtest.Start(t, lab.Seed()...)
	lines := make([]string, 25)
	for i := range lines {
		lines[i] = seed.BaseURL
	}
	code, stdout, stderr := probeCLI(t, strings.Join(lines, "\n"), "probe", "--targets", "-", "--timeout", "20s")
	if code != ExitFailed {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if n := strings.Count(stdout, seed.BaseURL+"  FAIL"); n != 25 {
		t.Errorf("%d FAIL rows, want 25", n)
	}
	if n := strings.Count(stdout, `: v0.3 card "seed-agent"`); n != maxTargetDetails {
		t.Errorf("%d reports printed, want %d", n, maxTargetDetails)
	}
	if !strings.Contains(stdout, "5 more failing target's reports not shown") {
		t.Errorf("the omitted reports are not counted:\n%s", stdout[max(0, len(stdout)-400):])
	}
}

// silentTargets are n base URLs of listeners that accept and never answer.
func silentTargets(t *testing.T, n int) []string {
	t.Helper()
	var urls []string
	for range n {
		l, err := lab.Listen(lab.Silent)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		urls = append(urls, "http://"+l.Addr)
	}
	return urls
}

// TestProbeTargets_TimeoutPerTarget: --timeout bounds each target, not the run: three
// silent targets probed one at a time each get their own second and time out on
// their own, none is left "not probed"; --deadline bounds the run, and the targets it
// leaves are "not probed".
func TestProbeTargets_TimeoutPerTarget(t *testing.T) {
	t.Parallel()
	targets := strings.Join(silentTargets(t, 3), "\n")
	code, stdout, stderr := probeCLI(t, targets, "probe", "--targets", "-", "--concurrency", "1", "--timeout", "1s", "-o", "json")
	if code != ExitFailed {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if n := strings.Count(stdout, `"ok":false`); n != 3 || strings.Contains(stdout, "not probed") {
		t.Errorf("want 3 targets each timed out on its own, none \"not probed\":\n%s", stdout)
	}

	code, stdout, stderr = probeCLI(t, targets, "probe", "--targets", "-", "--concurrency", "1", "--timeout", "1m", "--deadline", "1s", "-o", "json")
	if code != ExitFailed {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if n := strings.Count(stdout, "not probed"); n != 2 || strings.Count(stdout, `"ok":false`) != 3 {
		t.Errorf("--deadline 1s over three silent targets one at a time: want the last two \"not probed\":\n%s", stdout)
	}
}

// TestProbeTargets_Signature: the signature flags apply to every target:
// --require-signature fails the unsigned healthy agent with the unsigned finding.
func TestProbeTargets_Signature(t *testing.T) {
	t.Parallel()
	healthy := labtest.Start(t, lab.Healthy()...)
	code, stdout, stderr := probeCLI(t, healthy.BaseURL, "probe", "--targets", "-", "-o", "json")
	if code != ExitOK {
		t.Fatalf("without the flag: exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = probeCLI(t, healthy.BaseURL, "probe", "--targets", "-", "-o", "json", "--require-signature")
	if code != ExitFailed || !strings.Contains(stdout, `"code":"unsigned"`) {
		t.Errorf("--require-signature on an unsigned card: exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
}

// TestProbeTargets_TextMemory: in text mode a run keeps no more than -o json does
// (which prints each record and forgets it): 8,000 targets without a card peak at
// about the heap of the JSON Lines run, where text mode used to keep every row and
// failing report until the end (100,000 targets: 183 MB against 48 MB).
func TestProbeTargets_TextMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("probes 16,000 targets")
	}
	_, _, closed := fleet(t)
	var b strings.Builder
	for i := range 8_000 {
		fmt.Fprintf(&b, "%s/agents/%s/%d\n", closed, strings.Repeat("x", 60), i)
	}
	args := []string{"probe", "--targets", "-", "--concurrency", "16", "--deadline", "5m"}
	_, text := peakRun(t, io.Discard, b.String(), args...)
	_, jsonl := peakRun(t, io.Discard, b.String(), append(args, "-o", "json")...)
	t.Logf("8,000 targets without a card: text +%d KiB heap at most, -o json +%d KiB", text>>10, jsonl>>10)
	if text > jsonl+jsonl/2+(2<<20) {
		t.Errorf("text mode kept more than -o json: +%d KiB against +%d KiB", text>>10, jsonl>>10)
	}
}
