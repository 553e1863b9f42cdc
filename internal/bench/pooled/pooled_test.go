package pooled

import (
	"testing"
	"time"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestProbe: the baseline finds the healthy agent's three interfaces served, on one gRPC
// channel per address, and the v1.0 seed agent's misdeclared ones not served.
func TestProbe(t *testing.T) {
	p := New(10 * time.Second)
	defer p.Close()
	healthy := labtest.Start(t, lab.Healthy()...)
	res, err := p.Probe(t.Context(), healthy.BaseURL)
	if err != nil || len(res) != 3 {
		t.Fatalf("healthy: %v, %d results", err, len(res))
	}
	for _, r := range res {
		if !r.Served {
			t.Errorf("healthy %s %s: not served (%s)", r.Binding, r.URL, r.Err)
		}
	}
	if _, err := p.Probe(t.Context(), healthy.BaseURL); err != nil {
		t.Fatal(err)
	}
	if n := len(p.chans); n != 1 {
		t.Errorf("%d gRPC channels after two probes of one agent, want 1", n)
	}

	seed := labtest.Start(t, lab.SeedV1()...)
	res, err = p.Probe(t.Context(), seed.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	served := 0
	for _, r := range res {
		if r.Served {
			served++
		}
	}
	if served != 1 || len(res) != 3 {
		t.Errorf("seed: %d of %d served, want 1 of 3 (JSON-RPC only): %+v", served, len(res), res)
	}
}
