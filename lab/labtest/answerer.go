package labtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Answerer is a loopback HTTP server that answers every request with the status, content
// type and body last given to Set, so a fuzz target can put arbitrary answers on the wire.
type Answerer struct {
	// URL is the server's base URL.
	URL string

	mu     sync.Mutex
	status int
	ctype  string
	body   []byte
}

// NewAnswerer starts an Answerer (answering 200 with no body until Set) and closes it in
// tb's cleanup.
func NewAnswerer(tb testing.TB) *Answerer {
	tb.Helper()
	a := &Answerer{status: http.StatusOK}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		a.mu.Lock()
		s, ct, b := a.status, a.ctype, a.body
		a.mu.Unlock()
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(s)
		_, _ = w.Write(b)
	}))
	tb.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

// Set makes every following request get status, contentType (none when empty) and body.
func (a *Answerer) Set(status int, contentType string, body []byte) {
	a.mu.Lock()
	a.status, a.ctype, a.body = status, contentType, body
	a.mu.Unlock()
}
