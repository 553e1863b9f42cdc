package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abind/a2abind/lab"
)

// lineCounter counts the lines written to it and keeps only the last 4 KiB, so that a
// command printing an endless stream costs the test no memory.
type lineCounter struct {
	mu    sync.Mutex
	lines int
	tail  []byte
}

func (w *lineCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines += bytes.Count(p, []byte("\n"))
	w.tail = append(w.tail, p...)
	if len(w.tail) > 4<<10 {
		w.tail = append([]byte(nil), w.tail[len(w.tail)-4<<10:]...)
	}
	return len(p), nil
}

// heapWatch samples the heap every 20 ms, and the live heap (after a collection) every
// 500 ms, until stop is called. stop returns the highest heap sample and how much the
// live heap's floor (its lowest sample) rose from the first half of the run to the second.
func heapWatch() (stop func() (peak uint64, growth int64)) {
	var peak uint64
	var live []uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
				if n%25 == 0 {
					runtime.GC()
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					live = append(live, m.HeapAlloc)
				}
			}
		}
	}()
	return func() (uint64, int64) {
		close(done)
		<-finished
		sample()
		if len(live) < 2 {
			return peak, 0
		}
		// The floor of the live heap: one sample swings by megabytes with what is in
		// flight at the GC, while a leak raises every later sample.
		half := len(live) / 2
		return peak, int64(slices.Min(live[half:])) - int64(slices.Min(live[:half]))
	}
}

// TestSendStreamBoundedAndTimely: `send --stream` against a lab agent whose stream of
// events never ends keeps the heap under 64 MiB in every output mode, prints events as
// they arrive in text mode, summarises them in -o json, and ends at --timeout (exit 1,
// the stream broken by the deadline). The peer writes as fast as send reads: before the
// events were kept, the heap grew past 64 MiB within this --timeout.
func TestSendStreamBoundedAndTimely(t *testing.T) {
	p, err := lab.StartHostile(lab.EndlessEvents)
	if err != nil {
		t.Fatalf("lab.StartHostile() error = %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	cardFile := hostileCard(t, lab.Decl{URL: p.URL + "/a2a", Binding: lab.JSONRPC, Version: "1.0"})

	const timeout = 4 * time.Second
	const limit = 64 << 20
	for _, mode := range [][]string{nil, {"-v"}, {"-o", "json"}} {
		t.Run(strings.Join(append([]string{"mode"}, mode...), " "), func(t *testing.T) {
			args := append([]string{"send", cardFile, "hi", "--stream", "--no-cache", "--timeout", timeout.String()}, mode...)
			runtime.GC()
			stop := heapWatch()
			start := time.Now()
			out, errOut := &lineCounter{}, &lineCounter{}
			ctx, cancel := context.WithTimeout(t.Context(), timeout+20*time.Second) // catches a hang only
			defer cancel()
			done := make(chan int, 1)
			go func() { done <- run(ctx, args, strings.NewReader(""), out, errOut) }()
			var code int
			select {
			case code = <-done:
			case <-ctx.Done():
				_, _ = stop()
				t.Fatalf("a2abind %s did not end at --timeout %s", strings.Join(args, " "), timeout)
			}
			elapsed := time.Since(start)
			peak, growth := stop()
			t.Logf("%s: heap peak %.1f MiB, live heap growth %.1f MiB, %d lines out, ended after %s",
				strings.Join(mode, " "), float64(peak)/(1<<20), float64(growth)/(1<<20), out.lines, elapsed.Round(time.Millisecond))
			if peak > limit {
				t.Errorf("heap peaked at %.1f MiB, want under 64 MiB", float64(peak)/(1<<20))
			}
			// Bounded, not merely small in this run: the live heap does not grow with the stream.
			if growth > 4<<20 {
				t.Errorf("live heap grew %.1f MiB while the stream ran, want it flat", float64(growth)/(1<<20))
			}
			if elapsed > timeout+hostileMargin {
				t.Errorf("ended %s after it started, want at --timeout %s", elapsed, timeout)
			}
			if code != ExitFailed {
				t.Errorf("exit %d, want %d (the stream was cut by --timeout)\nstderr: %s", code, ExitFailed, errOut.tail)
			}
			if len(mode) == 2 { // -o json: one document, a summary of the events
				var doc struct {
					OK     bool `json:"ok"`
					Result struct {
						Events int    `json:"events"`
						State  string `json:"state"`
					} `json:"result"`
					Error string `json:"error"`
				}
				if err := json.Unmarshal(out.tail, &doc); err != nil {
					t.Fatalf("-o json printed %q: %v", out.tail, err)
				}
				if doc.OK || doc.Result.Events < 1000 || doc.Result.State != "TASK_STATE_WORKING" || doc.Error == "" {
					t.Errorf("-o json = %+v, want not ok, a summary of 1000+ working events and an error", doc)
				}
				return
			}
			if out.lines < 1000 || !strings.Contains(string(out.tail), "status: working") {
				t.Errorf("text printed %d lines ending %q, want 1000+ status lines as they arrived", out.lines, out.tail)
			}
		})
	}
}
