package lab

import (
	"net"
	"sync"
	"time"
)

// ClosedAddr returns a loopback host:port where nothing listens (connections are refused).
func ClosedAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// Behaviour says what a raw Listener does with each connection.
type Behaviour int

const (
	// Silent accepts connections, reads and discards what arrives, and never answers.
	Silent Behaviour = iota
	// Garbage answers every connection with bytes that fit no protocol, then closes it.
	Garbage
	// HangUp accepts and closes every connection at once without a byte.
	HangUp
)

// GarbageBytes is what a Garbage listener writes.
var GarbageBytes = []byte("\x00\xff\xfeNOT-A2A \x13\x37 garbage\r\n\r\n\x01\x02")

// Listener is a raw TCP listener on loopback with a fixed misbehaviour.
type Listener struct {
	// Addr is the listener's host:port.
	Addr string

	l     net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// Listen starts a raw listener with behaviour b.
func Listen(b Behaviour) (*Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rl := &Listener{Addr: l.Addr().String(), l: l, conns: map[net.Conn]struct{}{}}
	rl.wg.Add(1)
	go rl.serve(b)
	return rl, nil
}

func (rl *Listener) serve(b Behaviour) {
	defer rl.wg.Done()
	for {
		c, err := rl.l.Accept()
		if err != nil {
			return
		}
		rl.mu.Lock()
		rl.conns[c] = struct{}{}
		rl.mu.Unlock()
		rl.wg.Add(1)
		go func() {
			defer rl.wg.Done()
			defer rl.forget(c)
			switch b {
			case Garbage:
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				buf := make([]byte, 1)
				_, _ = c.Read(buf) // let the client speak first, as a server would
				_, _ = c.Write(GarbageBytes)
			case Silent:
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}
		}()
	}
}

func (rl *Listener) forget(c net.Conn) {
	_ = c.Close()
	rl.mu.Lock()
	delete(rl.conns, c)
	rl.mu.Unlock()
}

// Close stops accepting, closes every open connection and waits for them.
func (rl *Listener) Close() error {
	err := rl.l.Close()
	rl.mu.Lock()
	for c := range rl.conns {
		_ = c.Close()
	}
	rl.mu.Unlock()
	rl.wg.Wait()
	return err
}
