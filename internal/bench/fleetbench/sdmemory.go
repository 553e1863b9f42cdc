package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/a2abind/a2abind/lab"
)

// sdMemory measures, on a2abind processes, what a large fleet listing costs: the
// exporter's memory per target listed by /sd from a generated AI Catalog and from a
// generated targets file, the time /sd takes to refresh them, and the peak memory per
// target of probe --targets over the same list (refused ports: the agents need not
// exist for the listing, and a refused probe keeps the run short).
func sdMemory(args []string) error {
	fs := flag.NewFlagSet("sdmemory", flag.ContinueOnError)
	sizes := fs.String("entries", "10000,100000", "catalog and targets-file sizes")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("sdmemory: give the a2abind binary")
	}
	bin := fs.Arg(0)
	dir, err := os.MkdirTemp("", "fleetbench-sd")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	closed, err := lab.ClosedAddr()
	if err != nil {
		return err
	}
	var catalog []byte
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	catSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/ai-catalog+json")
		_, _ = w.Write(catalog)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = catSrv.Serve(ln) }()
	defer catSrv.Close()
	catURL := "http://" + ln.Addr().String() + "/catalog.json"

	fmt.Println("sdmemory: a2abind exporter /sd and probe --targets over generated listings (RSS and peak from /proc)")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			return err
		}
		urls := make([]string, n)
		entries := make([]map[string]string, n)
		for i := range urls {
			urls[i] = fmt.Sprintf("http://%s/agents/%06d", closed, i)
			entries[i] = map[string]string{"identifier": fmt.Sprintf("urn:agent:fleet:%06d", i), "displayName": fmt.Sprintf("Fleet agent %d", i),
				"type": "application/a2a-agent-card+json", "url": urls[i]}
		}
		if catalog, err = json.Marshal(map[string]any{"specVersion": "1.0", "entries": entries}); err != nil {
			return err
		}
		file := filepath.Join(dir, "agents.txt")
		if err := os.WriteFile(file, []byte(strings.Join(urls, "\n")+"\n"), 0o600); err != nil {
			return err
		}
		for _, src := range []struct{ name, discovery string }{
			{fmt.Sprintf("AI Catalog (%.1f MiB)", float64(len(catalog))/(1<<20)), fmt.Sprintf("catalogs: [%q]", catURL)},
			{"targets file", fmt.Sprintf("files: [%q]", file)},
		} {
			cfg := filepath.Join(dir, "exporter.yml")
			if err := os.WriteFile(cfg, fmt.Appendf(nil, "discovery: {%s, max_targets: %d}\n", src.discovery, n), 0o600); err != nil {
				return err
			}
			if err := sdRun(bin, cfg, src.name, n); err != nil {
				return err
			}
		}
		if err := probeTargetsRun(bin, file, n); err != nil {
			return err
		}
	}
	return nil
}

func sdRun(bin, cfg, name string, n int) error {
	srv, err := start(bin, "exporter", "--listen", "{addr}", "--config", cfg)
	if err != nil {
		return err
	}
	defer srv.stop()
	rss0, _, err := procMemory(srv.cmd.Process.Pid)
	if err != nil {
		return err
	}
	var times [2]time.Duration
	listed := 0
	for i := range times {
		t0 := time.Now()
		resp, err := http.Get("http://" + srv.addr + "/sd")
		if err != nil {
			return err
		}
		var groups []struct{ Targets []string }
		err = json.NewDecoder(resp.Body).Decode(&groups)
		resp.Body.Close()
		times[i] = time.Since(t0)
		if err != nil {
			return err
		}
		listed = len(groups)
	}
	rss, hwm, err := procMemory(srv.cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("  /sd %-22s %6d entries: %6d listed; first /sd (reads it) %v, next %v; RSS %.0f -> %.0f MiB (peak %.0f): %.0f B per target kept, %.0f B at peak\n",
		name, n, listed, times[0].Round(time.Millisecond), times[1].Round(time.Millisecond), rss0/(1<<20), rss/(1<<20), hwm/(1<<20),
		(rss-rss0)/float64(n), (hwm-rss0)/float64(n))
	return nil
}

// probeTargetsRun runs probe --targets over the file's n refused targets and reports
// its peak memory (VmHWM, read until it exits: rusage's maxrss would count the memory
// of this process, which the child held between fork and exec).
func probeTargetsRun(bin, file string, n int) error {
	cmd := exec.Command(bin, "probe", "--targets", file, "-o", "json", "--deadline", "10m")
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak float64
	var err error
poll:
	for {
		select {
		case err = <-done:
			break poll
		case <-time.After(20 * time.Millisecond):
			if _, hwm, err := procMemory(cmd.Process.Pid); err == nil {
				peak = max(peak, hwm)
			}
		}
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) { // failing targets exit non-zero, as they should
		return fmt.Errorf("probe --targets: %v: %s", err, stderr.String())
	}
	fmt.Printf("  probe --targets          %6d entries: %v; peak RSS %.0f MiB\n", n, time.Since(t0).Round(time.Millisecond), peak/(1<<20))
	return nil
}
