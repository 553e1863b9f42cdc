// Package wire is a2abind's failure vocabulary: what a request saw on the wire
// (Evidence), what it means (Outcome, decided by Classify alone), and whether a call
// may move on to the next declared interface after it (Policy: its Decide table and
// the fallback Walk). probe, delegate, server, guard and the exporter call it; none of
// them models a failure itself. docs/taxonomy.md shows the tables with their reasons.
package wire
