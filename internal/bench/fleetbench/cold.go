package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2abind/a2abind/internal/bench/pooled"
)

// cold runs one cold round over the agents with each prober, as a fresh process,
// alternating which goes first, and prints each one's wall time, CPU time (user and
// system, from the process's rusage) and the TCP connections the agents accepted
// during its run, then a2abind's ratios to the pooled prober: the lookups alone (like
// for like), and as shipped both to the lookups alone and to the pooled prober making
// the same capability calls ("pooled+caps").
func cold(args []string) error {
	fs := flag.NewFlagSet("cold", flag.ContinueOnError)
	n := fs.Int("agents", 300, "a2a-go agents to start (3 interfaces each)")
	// One cold round's CPU time varies by about 12% (one standard deviation) from run
	// to run on a 2-core machine: the median of 5 runs then varies by about 7% from
	// batch to batch, the median of 15 by about 4%.
	runs := fs.Int("runs", 15, "rounds per prober")
	conc := fs.Int("concurrency", 16, "targets probed at once, by both probers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("cold: give the a2abind binary")
	}
	as, err := startAgents(*n)
	if err != nil {
		return err
	}
	defer as.close()
	dir, err := os.MkdirTemp("", "fleetbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	targets := filepath.Join(dir, "targets.txt")
	if err := os.WriteFile(targets, []byte(strings.Join(as.urls, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	probers := map[string][]string{
		"a2abind": {fs.Arg(0), "probe", "--targets", targets, "-o", "json", "--concurrency", fmt.Sprint(*conc)},
		"pooled":  {self, "pooled", "-concurrency", fmt.Sprint(*conc), targets},
	}
	// lookups: a2abind without the capability calls, which the pooled prober does not
	// make: the like-for-like comparison beside the default one.
	probers["lookups"] = append(slices.Clone(probers["a2abind"]), "--no-capabilities")
	// pooled+caps: the pooled prober making the capability calls a2abind makes as
	// shipped, the like-for-like baseline of the default.
	probers["pooled+caps"] = []string{self, "pooled", "-concurrency", fmt.Sprint(*conc), "-capabilities", targets}
	order := []string{"a2abind", "pooled", "lookups", "pooled+caps"}
	got := map[string][]sample{}
	for range *runs {
		for _, name := range order {
			s, err := as.run(probers[name])
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			got[name] = append(got[name], s)
		}
		slices.Reverse(order) // alternate which prober runs first
	}
	probes := float64(3 * *n)
	fmt.Printf("cold round over %d a2a-go agents (%d interface probes), %d runs each, %d targets at once\n", *n, 3**n, *runs, *conc)
	for _, name := range []string{"pooled", "a2abind", "lookups", "pooled+caps"} {
		s := got[name]
		fmt.Printf("  %-11s wall %s   cpu %s   conns/probe %s\n", name,
			spread(s, func(s sample) float64 { return s.wall.Seconds() * 1000 }, "%.0f", " ms"),
			spread(s, func(s sample) float64 { return s.cpu.Seconds() * 1000 }, "%.0f", " ms"),
			spread(s, func(s sample) float64 { return float64(s.conns) / probes }, "%.2f", ""))
	}
	for _, pair := range [][2]string{{"a2abind", "pooled"}, {"lookups", "pooled"}, {"a2abind", "pooled+caps"}} {
		var wall, cpu []float64
		for i := range *runs {
			a, p := got[pair[0]][i], got[pair[1]][i]
			wall = append(wall, a.wall.Seconds()/p.wall.Seconds())
			cpu = append(cpu, a.cpu.Seconds()/p.cpu.Seconds())
		}
		fmt.Printf("  %-7s / %-11s run by run: wall %s (goal <= 1.0), cpu %s (goal <= 1.0)\n", pair[0], pair[1]+",",
			spreadOf(wall, "%.2f", ""), spreadOf(cpu, "%.2f", ""))
	}
	return nil
}

// sample is one run of one prober.
type sample struct {
	wall, cpu time.Duration
	conns     int64
}

func (as *agents) run(argv []string) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	before := as.accepted.Load()
	start := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(start), conns: as.accepted.Load() - before}
	if err != nil {
		return s, fmt.Errorf("%v: %s", err, stderr.String())
	}
	s.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return s, nil
}

// spread formats the median of f over s, with unit, and the range: "12 ms (10-15)".
func spread(s []sample, f func(sample) float64, format, unit string) string {
	var v []float64
	for _, x := range s {
		v = append(v, f(x))
	}
	return spreadOf(v, format, unit)
}

func spreadOf(v []float64, format, unit string) string {
	v = slices.Clone(v)
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return fmt.Sprintf(format+unit+" ("+format+"-"+format+")", med, v[0], v[len(v)-1])
}

// pooledRun is the pooled prober over a targets file: every target probed, the
// -concurrency flag's number at once, one JSON line per target on standard output. It
// exits non-zero when a target or an interface failed.
func pooledRun(args []string) error {
	fs := flag.NewFlagSet("pooled", flag.ContinueOnError)
	conc := fs.Int("concurrency", 16, "targets probed at once")
	caps := fs.Bool("capabilities", false, "also make the capability calls a2abind's probe makes")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		return fmt.Errorf("pooled: give a targets file (%v)", err)
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	p := pooled.New(10 * time.Second)
	p.Capabilities = *caps
	defer p.Close()
	jobs := make(chan string)
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	failed := 0
	var wg sync.WaitGroup
	for range *conc {
		wg.Go(func() {
			for t := range jobs {
				res, err := p.Probe(context.Background(), t)
				line := struct {
					Target  string          `json:"target"`
					Results []pooled.Result `json:"results"`
					Error   string          `json:"error,omitempty"`
				}{Target: t, Results: res}
				ok := err == nil
				if err != nil {
					line.Error = err.Error()
				}
				for _, r := range res {
					ok = ok && r.Served
				}
				mu.Lock()
				_ = enc.Encode(line)
				if !ok {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	for _, t := range strings.Fields(string(data)) {
		jobs <- t
	}
	close(jobs)
	wg.Wait()
	if err := out.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d targets failed", failed)
	}
	return nil
}
