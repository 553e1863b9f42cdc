package cli

import (
	"os"
	"runtime/debug"
)

// fleetGCPercent is the collector's target of a fleet run (probe --targets, --catalog)
// at up to fleetGCConcurrency targets at once. Such a run is a batch whose live heap is
// small and bounded by the concurrency (about 4 MB at the default 16). At Go's default
// of 100 a round over 300 agents collected 9 times, 8-16% of the run's CPU. A higher
// target collects less often but grows the heap, and every page of a fresh process's
// heap costs a page fault when first touched. A round allocating about 29 MB took 0-7%
// less CPU at 250 than at 400 (median 4%, eight paired batches of 9 runs) and 2-3% less
// than at 200 (docs/benchmarks.md).
// Larger runs keep the default: their live heap times 3.5 would no longer be small.
const (
	fleetGCPercent     = 250
	fleetGCConcurrency = 64
)

// fleetGC sets the collector's target for a fleet run at the given concurrency, unless
// GOGC says otherwise, and returns what restores it.
func fleetGC(concurrency int) (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set || concurrency > fleetGCConcurrency {
		return func() {}
	}
	old := debug.SetGCPercent(fleetGCPercent)
	return func() { debug.SetGCPercent(old) }
}
