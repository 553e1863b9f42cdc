//go:build linux

package server

import (
	"net"
	"testing"
)

// TestAcceptQueue: acceptQueue sees a connection waiting to be accepted, and none after.
func TestAcceptQueue(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n, ok := acceptQueue(l); !ok || n != 1 {
		t.Errorf("acceptQueue = %d, %v; want 1 waiting", n, ok)
	}
	a, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n, ok := acceptQueue(l); !ok || n != 0 {
		t.Errorf("acceptQueue after Accept = %d, %v; want 0", n, ok)
	}
}
