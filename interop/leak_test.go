package interop

import (
	"fmt"
	"os"

	"go.uber.org/goleak"
)

// leakCheck turns a passing run into a failure when a goroutine outlived the tests (a
// client, connection, server or stream left open); TestMain calls it once the tests and
// the JS servers have stopped.
func leakCheck(code int) int {
	if code != 0 {
		return code
	}
	if err := goleak.Find(); err != nil {
		fmt.Fprintln(os.Stderr, "goleak: goroutines outlived the tests:", err)
		return 1
	}
	return 0
}
