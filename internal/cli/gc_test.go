package cli

import (
	"runtime/debug"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestFleetGC: a fleet run at a small concurrency collects at fleetGCPercent and puts
// the collector back after; GOGC and a large concurrency leave it alone.
func TestFleetGC(t *testing.T) {
	before := gcPercent()
	restore := fleetGC(16)
	if got := gcPercent(); got != fleetGCPercent {
		t.Errorf("during a fleet run at concurrency 16: GC percent %d, want %d", got, fleetGCPercent)
	}
	restore()
	if got := gcPercent(); got != before {
		t.Errorf("after: GC percent %d, want %d back", got, before)
	}
	restore = fleetGC(fleetGCConcurrency + 1)
	if got := gcPercent(); got != before {
		t.Errorf("at concurrency %d: GC percent %d, want %d (untouched)", fleetGCConcurrency+1, got, before)
	}
	restore()
	t.Setenv("GOGC", "50")
	restore = fleetGC(16)
	if got := gcPercent(); got != before {
		t.Errorf("with GOGC set: GC percent %d, want %d (untouched)", got, before)
	}
	restore()
}
