package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestExporterCmd runs `a2abind exporter` in-process, scrapes it for the seed agent,
// and stops it by cancelling its context (as SIGTERM does): exit 0, nothing left.
func TestExporterCmd(t *testing.T) {
	t.Parallel()
	seed := labtest.Start(t, lab.Seed()...)
	addr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "exporter.yml")
	if err := os.WriteFile(cfg, []byte("modules: {fast: {timeout: 5s}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"exporter", "--listen", addr, "--config", cfg}, strings.NewReader(""), &stdout, &stderr)
	}()

	target := "http://" + addr + "/probe?module=fast&target=" + url.QueryEscape(seed.BaseURL)
	var body string
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(target)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("exporter not answering on %s: %v; stderr %s", addr, err, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(body, "\nprobe_success 0\n") {
		t.Errorf("scrape of the seed agent:\n%s", body)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit = %d after a stop, want 0; stderr %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the exporter did not stop")
	}
}

// TestExporterCmd_Usage: a wrong command line or config is exit 2 naming the problem.
func TestExporterCmd_Usage(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.yml")
	if err := os.WriteFile(bad, []byte("modules: {m: {timout: 1s}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	leaky := filepath.Join(t.TempDir(), "leaky.yml")
	if err := os.WriteFile(leaky, []byte("modules: {prod: {headers: {Authorization: {value: Bearer x}}}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"exporter", "--listen", "127.0.0.1:0", "--config", leaky}, `module "prod" sends headers (Authorization) but does not say where they may go`},
		{[]string{"exporter"}, "needs --listen"},
		{[]string{"exporter", "--listen", "127.0.0.1:0", "extra"}, "unknown command"},
		{[]string{"exporter", "--listen", "127.0.0.1:0", "--config", bad}, `timout not found in type exporter.Module; did you mean "timeout"?`},
		{[]string{"exporter", "--listen", "127.0.0.1:0", "--config", filepath.Join(t.TempDir(), "none.yml")}, "no such file"},
		{[]string{"exporter", "--listen", "256.0.0.1:1"}, "--listen 256.0.0.1:1"},
	} {
		code, _, stderr := probeCLI(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}
