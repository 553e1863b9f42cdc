package demo

import (
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestRunPlaysTheRecord runs the whole demo on loopback: every step must behave as the
// seed record says (each step's OK is computed from what really happened on the wire).
func TestRunPlaysTheRecord(t *testing.T) {
	ctx := t.Context()
	start := time.Now()
	rep, err := Run(ctx)
	if err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	for _, s := range rep.Steps {
		if !s.OK {
			t.Errorf("step %s did not behave as the record says (%s): notes %q calls %+v attempts %+v", s.Name, s.Expected, s.Notes, s.Calls, s.Attempts)
		}
	}
	if !rep.OK {
		t.Errorf("Report.OK = false, failed steps %v", rep.Failed())
	}
	want := []string{StepSeedAgent, StepSeedClients, StepProbe, StepDelegate, StepGuardedRefuse, StepCorrected}
	if len(rep.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(rep.Steps), len(want))
	}
	for i, name := range want {
		if rep.Steps[i].Name != name {
			t.Errorf("step %d = %s, want %s", i, rep.Steps[i].Name, name)
		}
	}
	t.Logf("demo took %v", time.Since(start))
}

// TestClientsStepReportsADeviation feeds the record's expectations a healthy v0.3 agent:
// every client succeeds there, so the step must say it did not go as recorded.
func TestClientsStepReportsADeviation(t *testing.T) {
	a, err := lab.Start(lab.HealthyV03()...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, err := card.Fetch(t.Context(), a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	s := clientsStep(t.Context(), StepSeedClients, "healthy", c, probe.Card(t.Context(), c), "seed expectations", []bool{false, false, true})
	if s.OK {
		t.Errorf("clientsStep() on a healthy agent with the seed's expectations: OK = true, want false; calls %+v", s.Calls)
	}
	for _, call := range s.Calls {
		if !call.OK || call.Outcome != wire.Served {
			t.Errorf("call %q on a healthy agent = ok %v outcome %s (%s), want delivered and served", call.Client, call.OK, call.Outcome, call.Error)
		}
	}
}
