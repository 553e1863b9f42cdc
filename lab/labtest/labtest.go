// Package labtest starts lab agents for tests and benchmarks and stops them when the
// test ends.
package labtest

import (
	"testing"

	"github.com/a2abind/a2abind/lab"
)

// Start starts a lab agent with opts, fails tb if it cannot, and closes the agent in
// tb's cleanup.
func Start(tb testing.TB, opts ...lab.Option) *lab.Agent {
	tb.Helper()
	a, err := lab.Start(opts...)
	if err != nil {
		tb.Fatalf("lab.Start() error = %v", err)
	}
	tb.Cleanup(func() { _ = a.Close() })
	return a
}
