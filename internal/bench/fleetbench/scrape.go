package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/a2abind/a2abind/card"
)

// blackboxConfig is blackbox_exporter's module for the baseline: one HTTP GET of the
// card URL, 200 expected.
const blackboxConfig = `modules:
  http_2xx:
    prober: http
    timeout: 5s
    http:
      valid_status_codes: [200]
      preferred_ip_protocol: ip4
`

// scrape starts one healthy agent, a2abind's exporter and Debian's
// prometheus-blackbox-exporter, and times /probe of the agent's card URL on each, the
// two taking turns scrape by scrape over one keep-alive client (as Prometheus scrapes),
// and prints the median latency of each run and a2abind's ratio to blackbox's.
func scrape(args []string) error {
	fs := flag.NewFlagSet("scrape", flag.ContinueOnError)
	scrapes := fs.Int("scrapes", 200, "scrapes of each exporter per run")
	runs := fs.Int("runs", 5, "runs")
	blackbox := fs.String("blackbox", "prometheus-blackbox-exporter", "blackbox_exporter binary")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("scrape: give the a2abind binary")
	}
	bb, err := exec.LookPath(*blackbox)
	if err != nil {
		return fmt.Errorf("%s not found: install Debian's prometheus-blackbox-exporter (apt-get install prometheus-blackbox-exporter) or pass -blackbox PATH", *blackbox)
	}
	as, err := startAgents(1)
	if err != nil {
		return err
	}
	defer as.close()
	target := as.urls[0] + card.WellKnownPath
	dir, err := os.MkdirTemp("", "fleetbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "blackbox.yml")
	if err := os.WriteFile(cfg, []byte(blackboxConfig), 0o600); err != nil {
		return err
	}
	a2abindSrv, err := start(fs.Arg(0), "exporter", "--listen", "{addr}")
	if err != nil {
		return err
	}
	defer a2abindSrv.stop()
	bbSrv, err := start(bb, "--config.file="+cfg, "--web.listen-address={addr}")
	if err != nil {
		return err
	}
	defer bbSrv.stop()
	client := &http.Client{Timeout: 10 * time.Second}
	probes := []struct {
		name, url string
	}{
		{"a2abind", "http://" + a2abindSrv.addr + "/probe?target=" + url.QueryEscape(target)},
		{"blackbox", "http://" + bbSrv.addr + "/probe?module=http_2xx&target=" + url.QueryEscape(target)},
	}
	for _, p := range probes { // warm: connections to the exporters and to the agent
		for range 20 {
			if _, err := timeScrape(client, p.url); err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
		}
	}
	fmt.Printf("exporter scrape of one healthy 3-interface agent's card URL, %d runs of %d scrapes each, taking turns\n", *runs, *scrapes)
	var ratios []float64
	for r := range *runs {
		samples := make([][]float64, len(probes))
		for i := range *scrapes {
			for k := range probes {
				j := (i + k) % len(probes)
				d, err := timeScrape(client, probes[j].url)
				if err != nil {
					return fmt.Errorf("%s: %w", probes[j].name, err)
				}
				samples[j] = append(samples[j], float64(d.Microseconds()))
			}
		}
		med := []float64{median(samples[0]), median(samples[1])}
		ratios = append(ratios, med[0]/med[1])
		fmt.Printf("  run %d: a2abind %.0f µs, blackbox %.0f µs (medians), ratio %.2f\n", r+1, med[0], med[1], med[0]/med[1])
	}
	fmt.Printf("  a2abind / blackbox_exporter scrape latency, run by run: %s (goal <= 1.1)\n", spreadOf(ratios, "%.2f", ""))
	return nil
}

// timeScrape GETs a /probe URL, reads the answer and checks that the probe succeeded.
func timeScrape(client *http.Client, u string) (time.Duration, error) {
	start := time.Now()
	resp, err := client.Get(u)
	if err != nil {
		return 0, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "\nprobe_success 1") {
		return 0, fmt.Errorf("HTTP %d, probe failed: %.300s", resp.StatusCode, body)
	}
	return d, nil
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// server is an exporter started as a process on a free loopback port.
type server struct {
	cmd  *exec.Cmd
	addr string
}

// start runs argv with {addr} replaced by a free loopback address and waits until it
// answers HTTP there.
func start(argv0 string, args ...string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "{addr}", addr)
	}
	s := &server{cmd: exec.Command(argv0, args...), addr: addr}
	var stderr strings.Builder
	s.cmd.Stderr = &stderr
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
			resp.Body.Close()
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New(argv0 + " did not start: " + stderr.String())
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}
