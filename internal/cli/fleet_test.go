package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// lineChecker is a stdout that checks each JSON Lines record as it arrives, keeping
// only the verdicts, so the run's own memory is what is measured.
type lineChecker struct {
	mu      sync.Mutex
	partial []byte
	ok      map[string]bool
	bad     []string
}

func (w *lineChecker) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		var rec struct {
			Target string `json:"target"`
			OK     bool   `json:"ok"`
			Error  string `json:"error"`
		}
		if err := json.Unmarshal(w.partial[:i], &rec); err != nil || rec.Error != "" {
			w.bad = append(w.bad, fmt.Sprintf("%.200s (%v)", w.partial[:i], err))
		}
		w.ok[rec.Target] = rec.OK
		w.partial = w.partial[i+1:]
	}
}

// fleetRun probes targets with --targets - -o json and returns the verdicts and the
// most goroutines and heap seen during the run, above what was there before it.
func fleetRun(t *testing.T, targets []string, concurrency int) (verdicts map[string]bool, goroutines int, heap uint64) {
	t.Helper()
	out := &lineChecker{ok: map[string]bool{}}
	goroutines, heap = peakRun(t, out, strings.Join(targets, "\n"),
		"probe", "--targets", "-", "-o", "json", "--concurrency", fmt.Sprint(concurrency), "--deadline", "5m")
	if len(out.bad) > 0 {
		t.Fatalf("%d bad records, first: %s", len(out.bad), out.bad[0])
	}
	return out.ok, goroutines, heap
}

// peakRun runs the CLI with args, stdin and stdout, and returns the most goroutines
// and heap in use seen during the run, above what was there before it. The exit must
// be 0 or 1.
func peakRun(t *testing.T, stdout io.Writer, stdin string, args ...string) (goroutines int, heap uint64) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseG, baseHeap := runtime.NumGoroutine(), ms.HeapInuse
	var peakG atomic.Int64
	var peakHeap atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if g := int64(runtime.NumGoroutine()); g > peakG.Load() {
					peakG.Store(g)
				}
				if m.HeapInuse > peakHeap.Load() {
					peakHeap.Store(m.HeapInuse)
				}
			}
		}
	}()
	var errOut bytes.Buffer
	code := run(t.Context(), args, strings.NewReader(stdin), stdout, &errOut)
	close(done)
	wg.Wait()
	if code != ExitFailed && code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	return int(peakG.Load()) - baseG, peakHeap.Load() - min(peakHeap.Load(), baseHeap)
}

// TestProbeTargets_Fleet probes 500 lab agents (one in ten is the seed) with
// --targets: every verdict is right, and the goroutines and heap the run adds grow
// with the concurrency, not with the number of targets (compared with 100 targets in
// the same process).
func TestProbeTargets_Fleet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 500 lab agents")
	}
	const n, concurrency = 500, 16
	want := map[string]bool{}
	targets := make([]string, 0, n)
	for i := range n {
		opts := lab.Healthy()
		if i%10 == 0 {
			opts = lab.Seed()
		}
		a := labtest.Start(t, opts...)
		targets = append(targets, a.BaseURL)
		want[a.BaseURL] = i%10 != 0
	}
	small, gSmall, hSmall := fleetRun(t, targets[:100], concurrency)
	got, gBig, hBig := fleetRun(t, targets, concurrency)
	t.Logf("100 targets: +%d goroutines, +%d KiB heap at most; 500 targets: +%d goroutines, +%d KiB heap",
		gSmall, hSmall>>10, gBig, hBig>>10)
	if len(small) != 100 || len(got) != n {
		t.Fatalf("%d and %d verdicts for 100 and %d targets", len(small), len(got), n)
	}
	for tgt, ok := range want {
		if got[tgt] != ok {
			t.Errorf("%s: ok = %v, want %v", tgt, got[tgt], ok)
		}
	}
	// Five times the targets: the same concurrency, so about the same peak (twice is a
	// generous margin for scheduling noise; growing with targets would be five times).
	if gBig > 2*gSmall+200 {
		t.Errorf("goroutines grew with the targets: +%d for 100, +%d for 500", gSmall, gBig)
	}
	if hBig > 2*hSmall+(16<<20) {
		t.Errorf("heap grew with the targets: +%d KiB for 100, +%d KiB for 500", hSmall>>10, hBig>>10)
	}
}
