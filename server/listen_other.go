//go:build !linux

package server

import "net"

// acceptQueue cannot see a listener's accept queue on this system: Shutdown relies on
// the quiet period alone.
func acceptQueue(net.Listener) (int, bool) { return 0, false }
