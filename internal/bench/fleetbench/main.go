// Command fleetbench measures a2abind against baselines as whole processes in one run,
// for bench.sh; it prints ratios, never absolute times to compare across machines.
//
//	fleetbench cold [-agents 300] [-runs 15] A2ABIND   one cold fleet round: a2abind probe
//	    --targets -o json (as shipped and --no-capabilities) against the pooled a2a-go
//	    prober (internal/bench/pooled), without and with the capability calls
//	fleetbench pooled [-capabilities] TARGETS          the pooled prober itself (run by cold)
//	fleetbench scrape [-scrapes 200] [-runs 5] A2ABIND the exporter's /probe against
//	    blackbox_exporter's http probe of the same card URL
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fleetbench cold|pooled|scrape ...")
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
	default:
		err = fmt.Errorf("unknown mode %q: want cold, pooled or scrape", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleetbench:", err)
		os.Exit(1)
	}
}
