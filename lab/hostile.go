package lab

import (
	"bufio"
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
)

// Hostile says how a HostilePeer answers every request, whatever its path or method:
// the peers a client must survive with bounded time and memory.
type Hostile int

const (
	// EndlessBody answers 200 application/json with a JSON object whose string value
	// never ends, as fast as the client reads (up to HostileMaxBytes per connection).
	EndlessBody Hostile = iota
	// TrickleHeaders sends its status line and headers one byte per TrickleInterval
	// (slowloris on the answer): the headers never complete in a test's budget.
	TrickleHeaders
	// TrickleBody sends its headers at once, then a JSON body one byte per
	// TrickleInterval, forever.
	TrickleBody
	// EndlessKeepAlive answers 200 text/event-stream with an SSE comment every
	// TrickleInterval and never an event.
	EndlessKeepAlive
	// EndlessAfterEvent answers 200 text/event-stream with one A2A v1.0 JSON-RPC event
	// (a working status update), then SSE comments forever.
	EndlessAfterEvent
	// GiantEvent answers 200 text/event-stream with one "data:" line that never ends.
	GiantEvent
	// HangingGRPC is a gRPC server (plaintext HTTP/2) that accepts every call on every
	// service and never answers it.
	HangingGRPC
	// EndlessEvents answers 200 text/event-stream with the A2A v1.0 JSON-RPC event of
	// EndlessAfterEvent again and again, as fast as the client reads: a stream that never
	// ends, to check a client's memory stays bounded.
	EndlessEvents
)

// TrickleInterval is how often a trickling peer sends its next byte or comment.
const TrickleInterval = 10 * time.Millisecond

// HostileMaxBytes is what a hostile peer writes on one connection at most, so that a
// client that never stops reading still ends (and fails its test on memory, not time).
const HostileMaxBytes = 256 << 20

// HostilePeer is a loopback server with a hostile behaviour. HTTP kinds speak raw
// HTTP/1.1 on TCP, so nothing in net/http's server smooths them.
type HostilePeer struct {
	// Addr is the peer's host:port; URL is http://Addr.
	Addr string
	URL  string

	kind    Hostile
	srv     *tcpServer
	grpcSrv *grpc.Server
	written atomic.Int64
	done    chan struct{}
	once    sync.Once
}

// StartHostile starts a hostile peer of kind h on 127.0.0.1.
func StartHostile(h Hostile) (*HostilePeer, error) {
	srv, err := listenTCP()
	if err != nil {
		return nil, err
	}
	p := &HostilePeer{Addr: srv.addr(), URL: "http://" + srv.addr(), kind: h, srv: srv, done: make(chan struct{})}
	if h == HangingGRPC {
		p.grpcSrv = grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
			select {
			case <-stream.Context().Done():
				return stream.Context().Err()
			case <-p.done:
				return nil
			}
		}))
		srv.spawn(func() { _ = p.grpcSrv.Serve(srv.l) })
		return p, nil
	}
	srv.serve(p.answer)
	return p, nil
}

// Written is how many bytes the peer has written so far, on every connection: what a
// client read at most (plus what the kernel buffered).
func (p *HostilePeer) Written() int64 { return p.written.Load() }

// Close stops the peer, closes its connections and waits for them.
func (p *HostilePeer) Close() error {
	var err error
	p.once.Do(func() {
		close(p.done)
		if p.grpcSrv != nil {
			p.grpcSrv.Stop() // closes the listener; close below only waits
			_ = p.srv.close()
			return
		}
		err = p.srv.close()
	})
	return err
}

// answer reads one request's headers and answers it the hostile way.
func (p *HostilePeer) answer(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		if line == "\r\n" || line == "\n" {
			break
		}
	}
	w := &hostileWriter{c: c, p: p}
	switch p.kind {
	case EndlessBody:
		w.write(httpHead("application/json"))
		w.write([]byte(`{"jsonrpc": "2.0", "id": "x", "result": {"text": "`))
		w.repeat(bytes.Repeat([]byte("a"), 32<<10), 0)
	case TrickleHeaders:
		head := httpHead("application/json")
		for i := range head {
			if !w.write(head[i:i+1]) || !w.pause(TrickleInterval) {
				return
			}
		}
		w.repeat([]byte("{"), TrickleInterval)
	case TrickleBody:
		w.write(httpHead("application/json"))
		w.repeat([]byte(" "), TrickleInterval)
	case EndlessKeepAlive:
		w.write(httpHead("text/event-stream"))
		w.repeat([]byte(": keep-alive\n\n"), TrickleInterval)
	case EndlessAfterEvent:
		w.write(httpHead("text/event-stream"))
		w.write([]byte(firstEvent))
		w.repeat([]byte(": keep-alive\n\n"), TrickleInterval)
	case EndlessEvents:
		w.write(httpHead("text/event-stream"))
		w.repeat(bytes.Repeat([]byte(firstEvent), 64), 0)
	case GiantEvent:
		w.write(httpHead("text/event-stream"))
		w.write([]byte(`data: {"jsonrpc": "2.0", "id": "x", "result": {"text": "`))
		w.repeat(bytes.Repeat([]byte("a"), 32<<10), 0)
	}
}

// httpHead is an HTTP/1.1 200 status line and headers of a body without a length.
func httpHead(contentType string) []byte {
	return []byte("HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nConnection: close\r\n\r\n")
}

// firstEvent is one SSE event carrying a JSON-RPC 1.0 stream result: a task working
// (the JSON a2a.StreamResponse marshals to).
const firstEvent = `data: {"jsonrpc": "2.0", "id": "x", "result": ` +
	`{"statusUpdate":{"contextId":"hostile-context","status":{"state":"TASK_STATE_WORKING"},"taskId":"hostile-task"}}}` + "\n\n"

// hostileWriter writes to one connection, counting, until the peer closes, the client
// goes away or HostileMaxBytes were written.
type hostileWriter struct {
	c net.Conn
	p *HostilePeer
	n int64
}

func (w *hostileWriter) write(b []byte) bool {
	if w.n+int64(len(b)) > HostileMaxBytes {
		return false
	}
	_ = w.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	n, err := w.c.Write(b)
	w.n += int64(n)
	w.p.written.Add(int64(n))
	return err == nil
}

func (w *hostileWriter) pause(d time.Duration) bool {
	select {
	case <-w.p.done:
		return false
	case <-time.After(d):
		return true
	}
}

// repeat writes chunk again and again, every interval (0: as fast as the client reads).
func (w *hostileWriter) repeat(chunk []byte, interval time.Duration) {
	for w.write(chunk) {
		if interval > 0 && !w.pause(interval) {
			return
		}
		select {
		case <-w.p.done:
			return
		default:
		}
	}
}
