package demo

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a client, connection, server or stream left open by the code under test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRunLeavesNothing: once Run returned, every agent, listener, client and connection
// it started is gone.
func TestRunLeavesNothing(t *testing.T) {
	before := goleak.IgnoreCurrent()
	if _, err := Run(t.Context()); err != nil {
		t.Fatalf("Run() error = %v", err)
	}
	goleak.VerifyNone(t, before)
}
