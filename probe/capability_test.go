package probe_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// capabilityCodes are the findings of issue 21.
var capabilityCodes = map[string]bool{
	card.CodeCapabilityNotServed: true, card.CodeCapabilityNotDeclared: true,
	card.CodeAuthNotEquivalent: true, card.CodeErrorMapping: true,
}

// TestCheckHealthyAgents: the lab's healthy agents (v1.0, v0.3, union; a2a-go handlers
// with no push store and no extended card) declare streaming and serve it on every
// binding; push and the extended card are neither declared nor served. Check says so
// on the wire, per binding, and Diagnose raises none of the capability findings.
func TestCheckHealthyAgents(t *testing.T) {
	for name, opts := range map[string][]lab.Option{"v1": lab.Healthy(), "v03": lab.HealthyV03(), "union": lab.Union()} {
		t.Run(name, func(t *testing.T) {
			a := labtest.Start(t, opts...)
			c, err := card.Load(context.Background(), a.BaseURL)
			if err != nil {
				t.Fatal(err)
			}
			ch := probe.Check(context.Background(), c, probe.WithTimeout(5*time.Second))
			if len(ch.Results) != len(c.Interfaces) {
				t.Fatalf("%d results for %d interfaces", len(ch.Results), len(c.Interfaces))
			}
			got := map[probe.Capability][]probe.Served{}
			declared := map[probe.Capability]bool{}
			for _, cr := range ch.Capabilities {
				declared[cr.Name] = cr.Declared()
				got[cr.Name] = append(got[cr.Name], cr.Verdict)
				for _, call := range cr.Calls {
					got[cr.Name] = append(got[cr.Name], call.Outcome)
				}
			}
			want := map[probe.Capability][]probe.Served{
				probe.Streaming:         {probe.CapabilityServed, probe.CapabilityServed, probe.CapabilityServed, probe.CapabilityServed},
				probe.PushNotifications: {probe.CapabilityNotServed, probe.CapabilityNotServed, probe.CapabilityNotServed, probe.CapabilityNotServed},
				probe.ExtendedAgentCard: {probe.CapabilityNotServed, probe.CapabilityNotServed, probe.CapabilityNotServed, probe.CapabilityNotServed},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("verdict, then one outcome per binding (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(map[probe.Capability]bool{probe.Streaming: true, probe.PushNotifications: false, probe.ExtendedAgentCard: false}, declared); diff != "" {
				t.Errorf("declared (-want +got):\n%s", diff)
			}
			for _, f := range ch.Report(c).Findings {
				if capabilityCodes[f.Code] {
					t.Errorf("healthy agent got %s: %s", f.Code, f.Message)
				}
			}
		})
	}
}

// TestCheckWithoutCapabilities: WithCapabilities(false) is Card's result alone.
func TestCheckWithoutCapabilities(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	c, err := card.Load(context.Background(), a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	ch := probe.Check(context.Background(), c, probe.WithCapabilities(false))
	if len(ch.Capabilities) != 0 || len(ch.Results) != 3 {
		t.Fatalf("got %d capabilities, %d results", len(ch.Capabilities), len(ch.Results))
	}
}

// TestCapabilityCallsReused: an Engine reuses an interface's capability calls within
// the max age and asks again with WithCapabilityMaxAge(0), or when the card's claims
// change; the lookups run every time.
func TestCapabilityCallsReused(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		t.Fatal(err)
	}
	e := probe.NewEngine()
	defer e.Close()
	ctx := context.Background()
	at := func(ch probe.CardCheck) time.Time { return ch.Capabilities[0].Calls[0].At }
	first := e.Check(ctx, c)
	before := e.Stats().Requests
	again := e.Check(ctx, c)
	if at(again) != at(first) {
		t.Error("the calls were made again within the max age")
	}
	if n := e.Stats().Requests - before; n != 3 {
		t.Errorf("a check with reused calls made %d requests, want the 3 lookups", n)
	}
	fresh := e.Check(ctx, c, probe.WithCapabilityMaxAge(0))
	if !at(fresh).After(at(first)) {
		t.Error("WithCapabilityMaxAge(0) reused the calls")
	}
	changed, err := card.Parse([]byte(strings.Replace(string(a.CardJSON), `"streaming":true`, `"streaming":false`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if other := e.Check(ctx, changed); !at(other).After(at(fresh)) || other.Capabilities[0].Declared() {
		t.Error("a card with other claims reused the calls")
	}
}

// TestCheckServedNotDeclared: a card that leaves out streaming while every binding
// serves SubscribeToTask gets capability-not-declared (info) for it, and no
// capability-not-served: the finding comes from the wire, not from the card alone.
func TestCheckServedNotDeclared(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	c, err := card.Parse([]byte(strings.Replace(string(a.CardJSON), `"streaming":true`, `"streaming":false`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if c.Capabilities.Streaming.Declared {
		t.Fatal("the edited card still declares streaming")
	}
	ch := probe.Check(context.Background(), c, probe.WithTimeout(5*time.Second))
	var got []string
	for _, f := range ch.Report(c).Findings {
		if capabilityCodes[f.Code] {
			got = append(got, f.Code+" "+string(f.Severity))
			if f.Code == card.CodeCapabilityNotDeclared && !strings.Contains(f.Message, string(probe.Streaming)) {
				t.Errorf("%s does not name streaming: %s", f.Code, f.Message)
			}
		}
	}
	if diff := cmp.Diff([]string{card.CodeCapabilityNotDeclared + " " + string(card.SeverityInfo)}, got); diff != "" {
		t.Errorf("capability findings (-want +got):\n%s", diff)
	}
}

// TestCapabilityCallsCanceledNotKept: capability calls cut short by the caller (a
// canceled scrape, or the exporter's check of a card that changed while it was fetched)
// say nothing of the agent and are not reused: the next check asks again and gets the
// agent's answers.
func TestCapabilityCallsCanceledNotKept(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		t.Fatal(err)
	}
	e := probe.NewEngine()
	defer e.Close()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if v := e.Check(canceled, c).Capabilities[0].Verdict; v == probe.CapabilityServed {
		t.Fatalf("a canceled check read streaming as %s", v)
	}
	if got := e.Check(context.Background(), c); got.Capabilities[0].Verdict != probe.CapabilityServed {
		t.Errorf("after a canceled check: streaming %s, want served (the canceled calls were reused)", got.Capabilities[0].Verdict)
	}
}
