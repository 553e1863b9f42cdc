package probe_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// BenchmarkDiagnose is the diagnosis of a healthy three-interface card, checked once
// on the wire, as a fleet round makes it for every target: the card parsed afresh
// (so that its lint, which Diagnose reads, is not memoised across iterations), then
// Diagnose with the capability results ("diagnose"), against the parse alone ("parse").
func BenchmarkDiagnose(b *testing.B) {
	a := labtest.Start(b, lab.Healthy()...)
	c, err := card.Load(context.Background(), a.BaseURL)
	if err != nil {
		b.Fatal(err)
	}
	ch := probe.Check(context.Background(), c, probe.WithTimeout(5*time.Second))
	doc := c.Document()
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := card.Parse(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("diagnose", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := card.Parse(doc)
			if err != nil {
				b.Fatal(err)
			}
			if rep := probe.Diagnose(c, ch.Results, ch.Capabilities...); !rep.OK() {
				b.Fatal(rep.Findings)
			}
		}
	})
}
