package lab

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"iter"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// DropAfterHandling is middleware (for WithHTTPMiddleware) that lets POST requests to
// path run to completion (the agent executes the message), throws the answer away and
// closes the connection without a byte: the client sees a reset after its request was
// sent. Other requests pass through.
func DropAfterHandling(path string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != path {
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(&discardWriter{header: http.Header{}}, r)
			hijackAndClose(w)
		})
	}
}

// RawAfterHandling is middleware that lets POST requests to path run to completion (the
// agent executes the message), throws the answer away and writes raw instead on the
// connection, then closes it: a malformed status line ("HTTP/1.1 2OO OK") or raw
// HTTP/2 bytes after the request was fully read. Other requests pass through.
func RawAfterHandling(path, raw string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != path {
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(&discardWriter{header: http.Header{}}, r)
			hj, ok := w.(http.Hijacker)
			if !ok {
				return
			}
			conn, buf, err := hj.Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			_, _ = buf.WriteString(raw)
			_ = buf.Flush()
		})
	}
}

// DropAfterFirstEvent is middleware that passes POST answers to path through until the
// first server-sent event ("data:") has been written and flushed, then closes the
// connection: a stream that breaks after its first event.
func DropAfterFirstEvent(path string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.URL.Path != path {
				next.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(&firstEventWriter{ResponseWriter: w}, r)
		})
	}
}

func hijackAndClose(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	if conn, _, err := hj.Hijack(); err == nil {
		_ = conn.Close()
	}
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

var errDropped = errors.New("lab: connection dropped on purpose")

// firstEventWriter forwards writes until one carries an SSE data line, then flushes it
// and closes the connection; later writes fail.
type firstEventWriter struct {
	http.ResponseWriter
	dropped bool
}

func (f *firstEventWriter) Write(p []byte) (int, error) {
	if f.dropped {
		return 0, errDropped
	}
	n, err := f.ResponseWriter.Write(p)
	if bytes.Contains(p, []byte("data:")) {
		if fl, ok := f.ResponseWriter.(http.Flusher); ok {
			fl.Flush()
		}
		hijackAndClose(f.ResponseWriter)
		f.dropped = true
	}
	return n, err
}

func (f *firstEventWriter) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok && !f.dropped {
		fl.Flush()
	}
}

func (f *firstEventWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if hj, ok := f.ResponseWriter.(http.Hijacker); ok && !f.dropped {
		return hj.Hijack()
	}
	return nil, nil, errDropped
}

// Counter is an AgentExecutor that counts executions and remembers the messageId of
// each, delegating to Next (Echo when nil). Pass it to WithExecutor.
type Counter struct {
	// Next is the executor that does the work; nil means Echo.
	Next a2asrv.AgentExecutor

	n   atomic.Int64
	mu  sync.Mutex
	ids []string
}

var _ a2asrv.AgentExecutor = (*Counter)(nil)

// Execute counts the execution and runs Next.
func (c *Counter) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	c.n.Add(1)
	c.mu.Lock()
	if ec.Message != nil {
		c.ids = append(c.ids, ec.Message.ID)
	}
	c.mu.Unlock()
	return c.next().Execute(ctx, ec)
}

// Cancel runs Next's Cancel.
func (c *Counter) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return c.next().Cancel(ctx, ec)
}

func (c *Counter) next() a2asrv.AgentExecutor {
	if c.Next == nil {
		return Echo{}
	}
	return c.Next
}

// Executions returns how many times Execute ran.
func (c *Counter) Executions() int64 { return c.n.Load() }

// MessageIDs returns the messageId of every execution, in order.
func (c *Counter) MessageIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.ids...)
}

// CutProxy is a TCP proxy in front of a gRPC (HTTP/2) backend that forwards everything
// until the backend starts answering a call (its first HEADERS frame on a stream), then
// closes both connections: the call ran on the backend, the client never hears back and
// sees UNAVAILABLE mid-call.
type CutProxy struct {
	// Addr is the proxy's host:port, to declare in a card instead of the backend's.
	Addr string

	srv *tcpServer
}

// CutGRPCAfterHandling starts a CutProxy to backend (host:port) on loopback.
func CutGRPCAfterHandling(backend string) (*CutProxy, error) {
	srv, err := listenTCP()
	if err != nil {
		return nil, err
	}
	srv.serve(func(client net.Conn) {
		server, err := net.DialTimeout("tcp", backend, 5*time.Second)
		if err != nil || !srv.track(server) {
			return
		}
		defer srv.untrack(server)
		srv.spawn(func() { // client -> backend, verbatim
			_, _ = io.Copy(server, client)
			_ = server.Close()
		})
		// backend -> client, frame by frame, until a call's HEADERS
		header := make([]byte, 9)
		for {
			if _, err := io.ReadFull(server, header); err != nil {
				return
			}
			length := int(header[0])<<16 | int(header[1])<<8 | int(header[2])
			frameType, stream := header[3], binary.BigEndian.Uint32(header[5:9])&0x7fffffff
			if frameType == 0x1 && stream != 0 {
				return // the backend answers a call: cut here
			}
			payload := make([]byte, length)
			if _, err := io.ReadFull(server, payload); err != nil {
				return
			}
			if _, err := client.Write(append(header, payload...)); err != nil {
				return
			}
		}
	})
	return &CutProxy{Addr: srv.addr(), srv: srv}, nil
}

// Close stops the proxy and closes every connection.
func (p *CutProxy) Close() error { return p.srv.close() }
