package guard_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a probe, proxied connection, round loop or listener left open.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
