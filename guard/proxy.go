package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/telemetry"
)

// headerHop marks a request the guard forwarded: a request that comes back with it is
// a loop (the upstream is the guard itself, or proxies back to it).
const headerHop = "A2abind-Guard-Hop"

// clientHeaders are request headers a client's own are never forwarded with: those
// that name the client's address, and those that name another path than the request's
// (an upstream that honours X-Original-URL would otherwise serve a withheld card through
// it). Every X-Envoy-* header goes too (clientHeaderPrefix): Envoy trusts them from its
// peers.
var clientHeaders = []string{
	"Forwarded", "X-Forwarded-For", "X-Real-Ip", "X-Client-Ip", "Client-Ip", "True-Client-Ip",
	"X-Cluster-Client-Ip", "Cf-Connecting-Ip", "Fastly-Client-Ip", "X-Original-Forwarded-For", "X-Forwarded",
	"Forwarded-For", "X-Proxyuser-Ip", "X-Original-Url", "X-Rewrite-Url",
}

const clientHeaderPrefix = "X-Envoy-"

// newTransport is the guard's own connection pool to the upstream, closed on Shutdown.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil, // a sidecar talks to its upstream directly, never through HTTP_PROXY
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// h2cTransport is newTransport speaking only cleartext HTTP/2 (prior knowledge), for
// gRPC to an http:// upstream, over h2cConns. Its round trips fail with
// errHTTP1Upstream while the upstream's last connection answered in HTTP/1: the HTTP/2
// client reports a connection that failed before the server's SETTINGS in words of its
// own ("client conn could not be established"), not with the read error.
type h2cTransport struct {
	*http.Transport
	http1 atomic.Bool // the last connection's first bytes were an HTTP/1 answer
}

func newH2CTransport() *h2cTransport {
	t := &h2cTransport{Transport: newTransport()}
	t.Protocols = new(http.Protocols)
	t.Protocols.SetUnencryptedHTTP2(true)
	dial := t.DialContext
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &h2cConn{Conn: c, http1: &t.http1}, nil
	}
	return t
}

// RoundTrip is the HTTP/2 round trip, its error errHTTP1Upstream when the upstream
// speaks HTTP/1 only.
func (t *h2cTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.Transport.RoundTrip(r)
	if err != nil && !errors.Is(err, errHTTP1Upstream) && t.http1.Load() {
		err = fmt.Errorf("%w (%v)", errHTTP1Upstream, err)
	}
	return resp, err
}

// errHTTP1Upstream is the read error of an h2c connection whose upstream answered in
// HTTP/1 (h2cConn): every call on it fails with it, and the guard answers them as not
// served (see newProxy).
var errHTTP1Upstream = errors.New("the upstream answered HTTP/2 in HTTP/1")

// h2cConn is a cleartext HTTP/2 connection to the upstream that tells an HTTP/1 server
// by the first bytes it sends: an HTTP/2 server's first frame is its SETTINGS, never
// "HTTP/". An HTTP/1 server read the connection preface as an HTTP/1 request line and
// answered that; no gRPC handler ran, as a gRPC client connecting to it directly learns
// from the same bytes.
//
// Until those first bytes arrive only the 24-byte connection preface goes out; what the
// transport writes after it (its SETTINGS, the request's HEADERS) is held. An HTTP/1
// server that answers the preface and closes would otherwise close on unread bytes, and
// the kernel's reset discards its answer before the guard reads it.
type h2cConn struct {
	net.Conn
	mu    sync.Mutex
	sent  int          // preface bytes written
	held  []byte       // written by the transport after the preface, before the first answer
	read  bool         // the first bytes were read (held was then sent)
	http1 *atomic.Bool // set to whether those bytes were an HTTP/1 answer
}

// h2cPreface is the length of the HTTP/2 client connection preface.
const h2cPreface = 24

func (c *h2cConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.read {
		return c.Conn.Write(p)
	}
	n := min(h2cPreface-c.sent, len(p))
	if n > 0 {
		if _, err := c.Conn.Write(p[:n]); err != nil {
			return 0, err
		}
		c.sent += n
	}
	c.held = append(c.held, p[n:]...)
	return len(p), nil
}

func (c *h2cConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.read && n > 0 {
		http1 := strings.HasPrefix("HTTP/", string(p[:min(n, 5)]))
		c.http1.Store(http1)
		if http1 {
			return 0, errHTTP1Upstream
		}
		c.read = true
		if _, werr := c.Conn.Write(c.held); werr != nil && err == nil {
			err = werr
		}
		c.held = nil
	}
	return n, err
}

// newProxy forwards a request to the upstream origin, path and query unchanged. Streams
// are not buffered (every write of an event stream or gRPC is flushed at once; unary
// answers are not flushed per write),
// X-Forwarded-* are set from the client connection (a client's own are dropped), and
// hop-by-hop headers are removed (httputil.ReverseProxy). gRPC (HTTP/2, trailers kept)
// goes over grpcRT.
func newProxy(origin *url.URL, rt, grpcRT http.RoundTripper, log *slog.Logger) http.Handler {
	rp, grpcRP := reverseProxy(origin, rt, log), reverseProxy(origin, grpcRT, log)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(headerHop) != "" {
			http.Error(w, "a2abind guard: request loop (the upstream is this guard, or proxies back to it)", http.StatusLoopDetected)
			return
		}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					// The upstream cut its answer (ReverseProxy aborts): what it sent
					// reaches the client before the connection closes, as it does direct.
					_ = http.NewResponseController(w).Flush()
				}
				panic(v)
			}
		}()
		if card.IsGRPCRequest(r) && r.ProtoMajor == 2 {
			grpcRP.ServeHTTP(w, r)
			return
		}
		// Full duplex: Go's HTTP/1 server otherwise reads and closes what is left of the
		// request body when the handler writes its first answer bytes, while the
		// transport may still be forwarding that body; the transport then drops the
		// upstream connection and the answer is cut (golang/go#40747), or, when the
		// client sends the rest only after the first answer bytes, both wait for ever.
		// HTTP/2 is full duplex already.
		if r.ProtoMajor == 1 {
			if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
				log.Debug("proxy: full duplex not available", "err", err)
			}
		}
		rp.ServeHTTP(w, r)
	})
}

func reverseProxy(origin *url.URL, rt http.RoundTripper, log *slog.Logger) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(origin)
			// X-Forwarded-For from the peer only: ReverseProxy drops the client's
			// X-Forwarded-*, and the other client headers go here, so that no client
			// can name an address or a path the upstream would take for its own.
			for _, k := range clientHeaders {
				pr.Out.Header.Del(k)
			}
			for k := range pr.Out.Header {
				if strings.HasPrefix(k, clientHeaderPrefix) {
					pr.Out.Header.Del(k)
				}
			}
			pr.SetXForwarded()
			pr.Out.Header.Set(headerHop, "1")
			telemetry.InjectHTTP(pr.Out.Context(), pr.Out.Header) // the client's trace goes on to the upstream
			if pr.In.ProtoMajor == 1 && pr.Out.Body != nil {
				pr.Out.Body = &forwardedBody{ReadCloser: pr.Out.Body}
			}
		},
		ModifyResponse: func(res *http.Response) error {
			if b, ok := res.Request.Body.(*forwardedBody); ok && !b.ended.Load() {
				res.Header.Set("Connection", "close")
			}
			return nil
		},
		Transport:  rt,
		BufferPool: copyBuffers,
		// FlushInterval 0: an answer with a length is written as the server buffers it;
		// ReverseProxy flushes every write of a stream at once (text/event-stream, or no
		// Content-Length: gRPC, chunked answers).
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client went away
			}
			if errors.Is(err, errHTTP1Upstream) {
				// Not a bare 502: a gRPC client reads a non-gRPC answer under gRPC as
				// another binding's, as it reads the upstream's HTTP/1 answer directly.
				http.Error(w, "a2abind guard: the upstream agent speaks HTTP/1 only: no gRPC is served here", http.StatusNotImplemented)
				return
			}
			log.Warn("proxy: upstream did not answer", "method", r.Method, "path", r.URL.Path, "err", err)
			if r.ProtoMajor == 1 && r.ContentLength != 0 {
				w.Header().Set("Connection", "close") // the body may be left unread: see forwardedBody
			}
			http.Error(w, "a2abind guard: the upstream agent did not answer", http.StatusBadGateway)
		},
	}
}

// copyBuffers lends ReverseProxy the buffers it copies answers through (32 KB each,
// otherwise allocated per request).
var copyBuffers httputil.BufferPool = &bufferPool{}

type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(v []byte) { b.p.Put(&v) }

// forwardedBody is a client's HTTP/1 request body as the transport forwards it; ended
// says it was read to its end (or failed).
//
// An answer that starts before the body ended (the upstream answered before it read it
// all: 413, 401, or a stream) closes the client's connection after it, as Go's server
// does unless full duplex: what is left of the body may never be read. On a connection
// kept, Go's server would read the rest after the handler, start its background read
// after it stopped the last one, and the next request's body read would then meet it:
// "invalid concurrent Body.Read call", in the transport's goroutine, which kills the
// process (golang/go#68560); the server may also abort a read the transport still
// makes, which cancels every later request on the connection (answered 200 empty); or
// close the connection after more than 256 KB left, resetting the client's next request.
type forwardedBody struct {
	io.ReadCloser
	ended atomic.Bool
}

func (b *forwardedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.ended.Store(true)
	}
	return n, err
}
