package probe

import (
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/a2abind/a2abind/addr"
)

// httpBases holds an endpoint's HTTP URL over plaintext and over TLS (addr.Address.
// HTTPURL) and its parse, each made on first use and then shared: a long-lived Engine
// builds and parses an interface URL once, not once per request.
type httpBases [2]atomic.Pointer[httpBase]

// httpBase is one HTTP URL of an endpoint and its parse.
type httpBase struct {
	s   string
	u   *url.URL
	err error
}

// base returns the endpoint's HTTP URL for useTLS, and its parse.
func (e endpoint) base(useTLS bool) *httpBase {
	n := 0
	if useTLS {
		n = 1
	}
	if b := e.bases[n].Load(); b != nil {
		return b
	}
	b := newHTTPBase(e.addr, useTLS)
	e.bases[n].CompareAndSwap(nil, b)
	return e.bases[n].Load()
}

func newHTTPBase(a addr.Address, useTLS bool) *httpBase {
	u, err := a.URL(useTLS)
	return &httpBase{s: a.HTTPURL(useTLS), u: u, err: err}
}

// requestURL is the request URL of target, from the endpoint's parsed HTTP URL when
// target is that URL followed by a plain path suffix (addr.ExtendPath: the lookups'
// routes and random task ids), or nil, when net/http reads target itself.
func (e endpoint) requestURL(target string) *url.URL {
	b := e.base(strings.HasPrefix(target, "https://")) // HTTPURL writes the scheme so
	suffix, ok := strings.CutPrefix(target, b.s)
	if !ok || b.err != nil {
		return nil
	}
	return addr.ExtendPath(b.u, suffix)
}
