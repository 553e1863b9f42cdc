package probe_test

import (
	"context"
	"fmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
)

// Probe one agent again and again on one Engine, as a monitor does: after the first
// probe, its connections are reused. (One request per host:port at a time, so that the
// first probe opens exactly the connections the next ones need.)
func ExampleEngine() {
	agent, _ := lab.Start(lab.Healthy()...)
	defer agent.Close()
	c, _ := card.Parse(agent.CardJSON)

	e := probe.NewEngine(probe.WithMaxPerHost(1))
	defer e.Close()
	e.Card(context.Background(), c)
	dials := e.Stats().Dials
	for range 5 {
		e.Card(context.Background(), c)
	}
	fmt.Println("connections opened by five more probes:", e.Stats().Dials-dials)
	// Output:
	// connections opened by five more probes: 0
}

// Probe a fleet: each target's result comes out as soon as it is done.
func ExampleEngine_Targets() {
	healthy, _ := lab.Start(lab.Healthy()...)
	defer healthy.Close()
	seed, _ := lab.Start(lab.Seed()...)
	defer seed.Close()
	names := map[string]string{healthy.BaseURL: "healthy", seed.BaseURL: "seed"}

	e := probe.NewEngine()
	defer e.Close()
	for r := range e.Targets(context.Background(), []string{healthy.BaseURL, seed.BaseURL}, probe.WithConcurrency(2)) {
		fmt.Println(names[r.Target], "ok:", probe.Diagnose(r.Card, r.Results).OK())
	}
	// Unordered output:
	// healthy ok: true
	// seed ok: false
}
