package labtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
)

// Seen is one request an Origin received.
type Seen struct {
	// Method and Path are the request line's.
	Method, Path string
	// Header is the request's header.
	Header http.Header
}

// Origin is an HTTP server on a loopback host of its own (127.0.0.2 is a second origin
// on Linux loopback) that records every request it receives, server-side: what reached
// it is counted there, not guessed from the client.
type Origin struct {
	*httptest.Server
	mu   sync.Mutex
	seen []Seen
}

// StartOrigin serves h on host:0 (for example "127.0.0.2") and closes it in tb's cleanup.
func StartOrigin(tb testing.TB, host string, h http.Handler) *Origin {
	tb.Helper()
	lis, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		tb.Fatalf("listen on %s: %v", host, err)
	}
	o := &Origin{}
	o.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.seen = append(o.seen, Seen{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()})
		o.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	o.Listener.Close()
	o.Listener = lis
	o.Start()
	tb.Cleanup(o.Close)
	return o
}

// Requests returns the requests received so far.
func (o *Origin) Requests() []Seen {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Seen(nil), o.seen...)
}

// Carrying counts the requests received with a non-empty header key.
func (o *Origin) Carrying(key string) int {
	n := 0
	for _, s := range o.Requests() {
		if s.Header.Get(key) != "" {
			n++
		}
	}
	return n
}

// Proxy forwards every request to the HTTP listener of a lab agent (so an Origin can
// front a real A2A agent at another address).
func Proxy(tb testing.TB, baseURL string) http.Handler {
	tb.Helper()
	a, err := addr.ParseAddress(baseURL, a2a.TransportProtocolJSONRPC)
	if err != nil {
		tb.Fatal(err)
	}
	u, err := a.URL(a.TLS == addr.TLSYes)
	if err != nil {
		tb.Fatal(err)
	}
	return httputil.NewSingleHostReverseProxy(u)
}

// RedirectTo answers every request with code and a Location on target plus the
// request's path.
func RedirectTo(target string, code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.Path, code)
	})
}
