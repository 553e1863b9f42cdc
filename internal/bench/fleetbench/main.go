// Command fleetbench measures a2abind against baselines as whole processes in one run,
// for bench.sh; it prints ratios, never absolute times to compare across machines.
//
//	fleetbench cold [-agents 300] [-runs 15] A2ABIND   one cold fleet round: a2abind probe
//	    --targets -o json (as shipped and --no-capabilities) against the pooled a2a-go
//	    prober (internal/bench/pooled), without and with the capability calls
//	fleetbench pooled [-capabilities] TARGETS          the pooled prober itself (run by cold)
//	fleetbench scrape [-scrapes 200] [-runs 5] A2ABIND the exporter's /probe against
//	    blackbox_exporter's http probe of the same card URL
//	fleetbench capacity [-targets 1000,4000] A2ABIND   the exporter's CPU per scrape of
//	    a mixed fleet in steady state, so agents per core at a 60 s interval
//	fleetbench sdmemory [-entries 10000,100000] A2ABIND  memory per target and refresh
//	    time of /sd (a generated AI Catalog and targets file) and of probe --targets
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fleetbench cold|pooled|scrape|capacity|sdmemory ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "cold":
		err = cold(os.Args[2:])
	case "pooled":
		err = pooledRun(os.Args[2:])
	case "scrape":
		err = scrape(os.Args[2:])
	case "capacity":
		err = capacity(os.Args[2:])
	case "sdmemory":
		err = sdMemory(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: want cold, pooled, scrape, capacity or sdmemory", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetbench:", err)
		os.Exit(1)
	}
}
