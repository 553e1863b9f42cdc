package pooled

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
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

// TestCapabilities: with Capabilities set, the baseline asks the three capability calls
// on the first interface of each binding (and on no other), and judges them as
// a2abind's probe.Check does on the same real a2a-go agents: for each capability, served
// on every binding or not.
func TestCapabilities(t *testing.T) {
	methods := []string{"SubscribeToTask", "ListTaskPushConfigs", "GetExtendedAgentCard"}
	for _, tt := range []struct {
		name string
		opts []lab.Option
	}{
		{"healthy", lab.Healthy()},
		{"capable", lab.Capable()},
		{"streaming refused", lab.StreamingRefused()},
		{"push without a store", lab.PushWithoutStore()},
		{"extended card missing", lab.ExtendedCardMissing()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := labtest.Start(t, tt.opts...)
			p := New(10 * time.Second)
			p.Capabilities = true
			defer p.Close()
			res, err := p.Probe(t.Context(), a.BaseURL)
			if err != nil {
				t.Fatal(err)
			}
			// the probe's verdicts on the same agent
			c, err := card.Load(t.Context(), a.BaseURL)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for n, cr := range probe.Check(t.Context(), c, probe.WithTimeout(5*time.Second)).Capabilities {
				if cr.Verdict == probe.CapabilityUnknown {
					t.Fatalf("probe: %s unknown", cr.Name)
				}
				want[methods[n]] = cr.Verdict == probe.CapabilityServed
			}
			asked := 0
			for _, r := range res {
				if len(r.Calls) == 0 {
					continue
				}
				asked++
				if len(r.Calls) != len(methods) {
					t.Fatalf("%s: %d calls, want %d", r.Binding, len(r.Calls), len(methods))
				}
				for n, call := range r.Calls {
					if tt.name == "capable" && r.Binding == a2a.TransportProtocolGRPC && call.Method == "GetExtendedAgentCard" {
						// a2a-go's gRPC client refuses the lab's extended card, which
						// lists no interfaces ("supported interfaces cannot be empty"):
						// a reading of the answer, not a call less.
						if call.Served || call.Err == "" {
							t.Errorf("GRPC GetExtendedAgentCard of the capable agent: %+v", call)
						}
						continue
					}
					if call.Method != methods[n] || call.Served != want[call.Method] {
						t.Errorf("%s %s: served %v (%s), the probe says %v", r.Binding, call.Method, call.Served, call.Err, want[call.Method])
					}
				}
			}
			if asked != 3 {
				t.Errorf("capability calls on %d interfaces, want 3 (one per binding): %+v", asked, res)
			}
		})
	}
	// without the option, no call beside the lookups
	p := New(10 * time.Second)
	defer p.Close()
	res, err := p.Probe(t.Context(), labtest.Start(t, lab.Capable()...).BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if len(r.Calls) > 0 {
			t.Errorf("%s: capability calls without Capabilities", r.Binding)
		}
	}
}
