package exporter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// prometheusBinary finds Debian's prometheus (see debianBinary).
func prometheusBinary(t *testing.T) string {
	t.Helper()
	return debianBinary(t, "prometheus", "prometheus")
}

// debianBinary finds the program bin of Debian's package pkg, installing the package
// when it is missing and the test runs as root (as ./test.sh does in CI); otherwise it
// fails the test saying what to install.
func debianBinary(t *testing.T, pkg, bin string) string {
	t.Helper()
	if p, err := exec.LookPath(bin); err == nil {
		return p
	}
	if os.Geteuid() != 0 {
		t.Fatalf("%s is not on PATH and the test is not root, so it cannot install it: "+
			"install Debian's %s package (sudo apt-get update && sudo apt-get install -y %s), then run ./test.sh again", bin, pkg, pkg)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	wait := []string{"-o", "DPkg::Lock::Timeout=300"} // another apt run may hold the lock for a while
	for _, args := range [][]string{{"update"}, {"install", "-y", "--no-install-recommends", pkg}} {
		cmd := exec.CommandContext(ctx, "apt-get", append(wait, args...)...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("installing Debian's %s package: apt-get %s: %v\n%s\n"+
				"install it by hand (apt-get install -y %s) and run ./test.sh again", pkg, strings.Join(args, " "), err, tail(out), pkg)
		}
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		t.Fatalf("apt-get installed %s but %s is not on PATH: %v", pkg, bin, err)
	}
	return p
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// startPrometheus runs Prometheus on loopback with config and returns its address; it
// is stopped (SIGTERM, then killed) when the test ends.
func startPrometheus(t *testing.T, config string) string {
	t.Helper()
	bin := prometheusBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting prometheus: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("prometheus logs:\n%s", tail(logs.Bytes()))
		}
	})
	return addr
}

// query runs an instant query and returns the value of each series by instance.
func query(ctx context.Context, promAddr, q string) (map[string]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+promAddr+"/api/v1/query?query="+url.QueryEscape(q), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var doc struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, err
	}
	if doc.Status != "success" {
		return nil, errors.New(doc.Error)
	}
	out := map[string]string{}
	for _, r := range doc.Data.Result {
		v, _ := r.Value[1].(string)
		out[r.Metric["instance"]] = v
	}
	return out, nil
}

// eventually runs q until check accepts its result or the deadline passes, and returns
// the last result and error.
func eventually(t *testing.T, promAddr, q string, check func(map[string]string) bool) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	var last map[string]string
	var err error
	for {
		if last, err = query(ctx, promAddr, q); err == nil && check(last) {
			return last
		}
		select {
		case <-ctx.Done():
			t.Fatalf("query %s: last result %v, error %v", q, last, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// TestPrometheusScrapesTheExporter runs a real Prometheus that scrapes the exporter for
// the healthy lab agent and the seed incident's, relabelled as for blackbox_exporter,
// and checks through Prometheus's query API that the seed fails and the healthy agent
// passes, and that the seed's unserved interfaces are down.
func TestPrometheusScrapesTheExporter(t *testing.T) {
	t.Parallel()
	healthy := labtest.Start(t, lab.Healthy()...)
	seed := labtest.Start(t, lab.Seed()...)
	base := start(t, nil)
	exporterAddr := strings.TrimPrefix(base, "http://")
	promAddr := startPrometheus(t, fmt.Sprintf(`
global:
  scrape_interval: 2s
  scrape_timeout: 2s
scrape_configs:
  - job_name: a2a
    metrics_path: /probe
    static_configs:
      - targets: [%q, %q]
%s`, healthy.BaseURL, seed.BaseURL, probeRelabel(exporterAddr)))

	eventually(t, promAddr, "probe_success", func(r map[string]string) bool {
		return r[healthy.BaseURL] == "1" && r[seed.BaseURL] == "0"
	})
	// Both GRPC declarations of the seed card are down: at url (where only JSON-RPC is
	// served) and at the gRPC port with no A2A service.
	q := fmt.Sprintf(`count(a2abind_interface_up{instance=%q, binding="GRPC"} == 0)`, seed.BaseURL)
	eventually(t, promAddr, q, func(r map[string]string) bool { return r[""] == "2" })
	served := fmt.Sprintf(`a2abind_interface_up{instance=%q, binding="JSONRPC"}`, seed.BaseURL)
	eventually(t, promAddr, served, func(r map[string]string) bool { return r[seed.BaseURL] == "1" })
	eventually(t, promAddr, `a2abind_findings_by_code{code="preferred-not-served"}`, func(r map[string]string) bool {
		return r[seed.BaseURL] == "1" && r[healthy.BaseURL] == "0"
	})
}

// probeRelabel is the relabel_configs of a scrape job (at its indentation) that sends
// each target to the exporter at exporterAddr as /probe?target=, as docs/exporter.md
// shows, with instance the target; keep are pairs of a discovered label and the target
// label it is kept as.
func probeRelabel(exporterAddr string, keep ...string) string {
	var b strings.Builder
	b.WriteString(`    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - source_labels: [__param_target]
        target_label: instance
`)
	for i := 0; i+1 < len(keep); i += 2 {
		fmt.Fprintf(&b, "      - source_labels: [%s]\n        target_label: %s\n", keep[i], keep[i+1])
	}
	fmt.Fprintf(&b, "      - target_label: __address__\n        replacement: %q\n", exporterAddr)
	return b.String()
}
