package cli

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a client, connection, server or stream left open by the code under test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
