package lab

import (
	"net"
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

	srv *tcpServer
}

// Listen starts a raw listener with behaviour b.
func Listen(b Behaviour) (*Listener, error) {
	srv, err := listenTCP()
	if err != nil {
		return nil, err
	}
	srv.serve(func(c net.Conn) {
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
	})
	return &Listener{Addr: srv.addr(), srv: srv}, nil
}

// Close stops accepting, closes every open connection and waits for them.
func (rl *Listener) Close() error { return rl.srv.close() }

// ListenAnswering starts a raw listener that answers what a client sends on each
// connection with answer (an HTTP/1.x server's answer to a gRPC client's HTTP/2
// preface, for example). With hangUp it closes the connection after the first answer;
// otherwise it answers every later read the same way, as a server keeping the
// connection alive answers each request, until the client closes it.
func ListenAnswering(answer []byte, hangUp bool) (*Listener, error) {
	srv, err := listenTCP()
	if err != nil {
		return nil, err
	}
	srv.serve(func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
			if _, err := c.Write(answer); err != nil || hangUp {
				return
			}
		}
	})
	return &Listener{Addr: srv.addr(), srv: srv}, nil
}
