package exporter

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// TestEarly_DroppedIsCanceled: the early check of a previous card whose interface never
// answers is canceled, not waited for, when the card could not be fetched (take(nil))
// or changed, and nothing of the check runs on (the package's TestMain fails on a leaked
// goroutine). The check's own timeout is an hour: without the cancel take would hang.
func TestEarly_DroppedIsCanceled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	doc := []byte(`{"name":"silent","supportedInterfaces":[{"url":"http://` + ln.Addr().String() +
		`/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`)
	prev, err := card.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	x := New(nil)
	defer x.Close()
	opts := []probe.Option{probe.WithTimeout(time.Hour)}
	for _, fetched := range [][]byte{nil, []byte(`{"name":"changed"}`)} {
		e := x.startEarly(context.Background(), prev, prev.Document(), 10, opts)
		conn := <-accepted // the lookup is in flight (its request written or not yet)
		if results, caps, ok := e.take(fetched); ok || results != nil || caps != nil {
			t.Errorf("take(%q) kept the early check: %v", fetched, results)
		}
		_ = conn.Close()
		e.stop() // again: a no-op
	}
	_ = ln.Close()
	for c := range accepted {
		_ = c.Close()
	}
}
