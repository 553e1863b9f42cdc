package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
)

// capacity measures what docs/scaling.md sizes a fleet with, on an a2abind exporter
// process (its CPU and memory read from /proc, so the agents and this driver do not
// count): the CPU one scrape of a mixed fleet costs in steady state (70% healthy
// three-interface agents, 10% seed incidents declaring gRPC where JSON-RPC is served,
// 10% refused ports, 10% v0.3 agents), whence the agents one core carries at a 60 s
// scrape interval, for fleets smaller and larger than the exporter's card cache.
func capacity(args []string) error {
	fs := flag.NewFlagSet("capacity", flag.ContinueOnError)
	sizes := fs.String("targets", "1000,4000", "fleet sizes (distinct targets) to measure")
	rounds := fs.Int("rounds", 3, "measured scrape rounds after a warm-up round")
	conc := fs.Int("concurrency", 16, "scrapes at once (the exporter's default max_concurrent_probes)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("capacity: give the a2abind binary")
	}
	kinds := map[string][]lab.Option{"healthy": lab.Healthy(), "seed": lab.Seed(), "v0.3": lab.HealthyV03()}
	bases := map[string][]string{}
	for name, opts := range kinds {
		n := 1
		if name == "healthy" {
			n = 7
		}
		for range n {
			a, err := lab.Start(opts...)
			if err != nil {
				return err
			}
			defer a.Close()
			bases[name] = append(bases[name], a.BaseURL)
		}
	}
	closed, err := lab.ClosedAddr()
	if err != nil {
		return err
	}
	bases["refused"] = []string{"http://" + closed}
	// Of each 10 targets: 7 healthy, then a seed, a refused port, a v0.3 agent; each a
	// distinct URL (the card URL with a query the agents ignore).
	mix := []string{"healthy", "healthy", "healthy", "healthy", "healthy", "healthy", "healthy", "seed", "refused", "v0.3"}
	fmt.Printf("capacity: one a2abind exporter process, mixed fleet (70%% healthy, 10%% gRPC declared where JSON-RPC is served, 10%% refused port, 10%% v0.3), %d scrapes at once\n", *conc)
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			return err
		}
		targets := make([]string, n)
		for i := range targets {
			kind := mix[i%len(mix)]
			targets[i] = fmt.Sprintf("%s%s?n=%d", bases[kind][i%len(bases[kind])], card.WellKnownPath, i)
		}
		if err := capacityRun(fs.Arg(0), targets, *rounds, *conc); err != nil {
			return err
		}
	}
	return nil
}

func capacityRun(bin string, targets []string, rounds, conc int) error {
	srv, err := start(bin, "exporter", "--listen", "{addr}")
	if err != nil {
		return err
	}
	defer srv.stop()
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	round := func() (map[string]int, error) {
		results := map[string]int{}
		var mu sync.Mutex
		var firstErr error
		work := make(chan string)
		var wg sync.WaitGroup
		for range conc {
			wg.Go(func() {
				for t := range work {
					res, err := scrapeOnce(client, srv.addr, t)
					mu.Lock()
					results[res]++
					if err != nil && firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			})
		}
		for _, t := range targets {
			work <- t
		}
		close(work)
		wg.Wait()
		return results, firstErr
	}
	if _, err := round(); err != nil { // warm-up: connections, the card cache
		return err
	}
	cpu0, err := procCPU(srv.cmd.Process.Pid)
	if err != nil {
		return err
	}
	t0 := time.Now()
	var results map[string]int
	for range rounds {
		if results, err = round(); err != nil {
			return err
		}
	}
	wall := time.Since(t0)
	cpu1, err := procCPU(srv.cmd.Process.Pid)
	if err != nil {
		return err
	}
	rss, hwm, err := procMemory(srv.cmd.Process.Pid)
	if err != nil {
		return err
	}
	probes := float64(rounds * len(targets))
	perProbe := (cpu1 - cpu0).Seconds() / probes
	fmt.Printf("  %6d targets: %.0f µs CPU per scrape (%.0f scrapes/s per core busy), %.0f scrapes/s wall; one core carries %.0f agents at a 60 s interval; RSS %.0f MiB (peak %.0f); last round %v\n",
		len(targets), perProbe*1e6, 1/perProbe, probes/wall.Seconds(), 60/perProbe, rss/(1<<20), hwm/(1<<20), results)
	return nil
}

// scrapeOnce is one Prometheus-like scrape of /probe; it returns "success", "failure"
// (probe_success 0) or the HTTP status.
func scrapeOnce(client *http.Client, addr, target string) (string, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/probe?target="+url.QueryEscape(target), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "15")
	resp, err := client.Do(req)
	if err != nil {
		return "error", err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		return "error", err
	case resp.StatusCode != http.StatusOK:
		return "HTTP " + strconv.Itoa(resp.StatusCode), nil
	case strings.Contains(string(body), "\nprobe_success 1"):
		return "success", nil
	}
	return "failure", nil
}

// procCPU is a process's user and system CPU time so far (/proc/PID/stat).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (which may hold spaces) in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / 100, nil // USER_HZ is 100 on Linux
}

// procMemory is a process's resident set and its peak (VmRSS, VmHWM), in bytes.
func procMemory(pid int) (rss, hwm float64, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[2] == "kB" {
			v, _ := strconv.ParseFloat(f[1], 64)
			switch f[0] {
			case "VmRSS:":
				rss = v * 1024
			case "VmHWM:":
				hwm = v * 1024
			}
		}
	}
	return rss, hwm, nil
}
