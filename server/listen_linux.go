//go:build linux

package server

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// acceptQueue is how many connections wait in a TCP listener's accept queue (TCP_INFO's
// tcpi_unacked on a listening socket); ok is false when it cannot tell.
func acceptQueue(l net.Listener) (n int, ok bool) {
	sc, isSock := l.(syscall.Conn)
	if !isSock {
		return 0, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	_ = rc.Control(func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err == nil {
			n, ok = int(info.Unacked), true
		}
	})
	return n, ok
}
