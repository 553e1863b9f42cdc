package cli

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a client, connection, server or stream left open by the code under test. The
// tests run with a cache directory of their own, so `send` neither reads nor writes the
// user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "a2abind-cli-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { os.RemoveAll(dir) }))
}
