package probe

import (
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/a2abind/a2abind/card"
)

// httpBases holds an endpoint's HTTP URL over plaintext and over TLS (card.Address.
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
	if e.bases == nil { // an endpoint made by hand (tests): no memo
		return newHTTPBase(e.addr, useTLS)
	}
	if b := e.bases[n].Load(); b != nil {
		return b
	}
	b := newHTTPBase(e.addr, useTLS)
	e.bases[n].CompareAndSwap(nil, b)
	return e.bases[n].Load()
}

func newHTTPBase(a card.Address, useTLS bool) *httpBase {
	u, err := a.URL(useTLS)
	return &httpBase{s: a.HTTPURL(useTLS), u: u, err: err}
}

// requestURL is url.Parse(target) taken from the endpoint's parsed URL, when target is
// that URL followed by a plain path suffix (the lookups' routes and random task ids),
// after a path or starting one: the parse of the URL with the suffix appended to its
// path. FuzzRequestURL holds the two to the same URL. For any other target it returns
// nil, and net/http parses the target.
func (e endpoint) requestURL(target string) *url.URL {
	b := e.base(strings.HasPrefix(target, "https://")) // HTTPURL writes the scheme so
	suffix, ok := strings.CutPrefix(target, b.s)
	if !ok || b.err != nil {
		return nil
	}
	u := b.u
	if suffix != "" && (u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.RawFragment != "" || u.RawPath != "" ||
		u.Opaque != "" || u.Path == "" && suffix[0] != '/' || !plainPath(suffix)) {
		return nil
	}
	c := *u
	c.Path += suffix
	return &c
}

// plainPath reports whether s holds only unreserved characters, '/' and ':', which a
// URL path carries as they are: no escape to read, no query or fragment to start.
func plainPath(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == '~' || c == '/' || c == ':':
		default:
			return false
		}
	}
	return true
}
