//go:build !race

package exporter_test

// shardAgents is the fleet of TestPrometheusShards: the race detector slows the
// exporter down several times, so the race run shards 200 agents; the run without it
// (test.sh) shards 2,000.
const shardAgents = 2000
