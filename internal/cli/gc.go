package cli

import (
	"os"
	"runtime/debug"
)

// fleetGCPercent is the collector's target of a fleet run (probe --targets, --catalog)
// at up to fleetGCConcurrency targets at once. Such a run is a batch whose live heap is
// small and bounded by the concurrency (about 5 MB at the default 16), and at Go's
// default of 100 it collected 9 times in a round over 300 agents, 8-16% of the run's
// CPU; at 400 it collects 2-3 times, the peak heap is about 30 MB and the round's CPU
// falls by 3-10% (docs/benchmarks.md). Larger runs keep the default: their live heap times five
// would no longer be small.
const (
	fleetGCPercent     = 400
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
