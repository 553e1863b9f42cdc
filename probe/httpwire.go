package probe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/wire"
)

// httpAnswer is what one HTTP request of a probe saw, raw.
type httpAnswer struct {
	status      int
	contentType string // media type, without parameters
	proto       string
	body        []byte // at most maxBody bytes
	wwwAuth     string
	location    string
	tls         bool
	certExpiry  time.Time // earliest NotAfter of the certificates presented over TLS
	err         error
	truncated   bool  // the body was longer than maxBody: the rest was not read
	cut         error // reading the body failed (a deadline, a reset) after the status arrived
	withheld    bool  // the caller's headers were not sent (credential policy)
	sent        bool  // the request was fully written
}

// doHTTP sends one request with the probe's headers over the Engine's keep-alive
// connections, reads at most maxBody bytes of the answer and closes the body before
// returning (a longer body is not drained: its connection is closed, not reused).
func doHTTP(ctx context.Context, req request, method, target string, body []byte, header http.Header) httpAnswer {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	var wrote atomic.Bool // the request was fully written, as delegate records it
	traced := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) { wrote.Store(info.Err == nil) },
	})
	u := req.ep.requestURL(target) // requrl.go: the interface URL's parse, extended
	parse := target
	if u != nil {
		parse = "" // not parsed again: the URL is set below
	}
	hr, err := http.NewRequestWithContext(traced, method, parse, rd)
	if err != nil {
		return httpAnswer{err: err}
	}
	if u != nil {
		hr.URL, hr.Host = u, u.Host
	}
	withheld := len(req.o.conn.Header) > 0 && !req.o.credentialsFor(req.ep, hr.URL.Scheme == "https")
	if !withheld {
		for k, vs := range req.o.conn.Header {
			for _, v := range vs {
				hr.Header.Add(k, v)
			}
		}
	}
	for k, vs := range header { // shared and read only: the values are not appended to
		hr.Header[k] = slices.Clip(vs)
	}
	// Every probe request is a side-effect-free lookup: net/http may resend it when a
	// reused keep-alive connection turns out closed by the server before any answer
	// (the key, with no value, is not sent).
	hr.Header["Idempotency-Key"] = nil
	// The trace context: the agent's spans join the probe's trace.
	telemetry.InjectHTTP(ctx, hr.Header)
	resp, err := req.o.engine.client(req.o).Do(hr)
	if err != nil {
		return httpAnswer{err: err, tls: hr.URL.Scheme == "https", withheld: withheld, sent: wrote.Load()}
	}
	defer resp.Body.Close()
	mt := wire.MediaType(resp.Header.Get("Content-Type"))
	var data []byte
	var rerr error
	if mt == "text/event-stream" {
		// A stream (SubscribeToTask's) may never end: its first event is the answer.
		data, rerr = firstEvent(resp.Body, maxBody+1)
		if rerr == nil {
			drainStream(resp.Body)
		}
	} else {
		data, rerr = io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	}
	a := httpAnswer{
		status: resp.StatusCode, contentType: mt, proto: resp.Proto, body: data,
		wwwAuth: resp.Header.Get("WWW-Authenticate"), location: resp.Header.Get("Location"),
		tls: resp.TLS != nil, cut: rerr, withheld: withheld, sent: true,
	}
	if resp.TLS != nil {
		a.certExpiry = earliestExpiry(resp.TLS.PeerCertificates)
	}
	if len(data) > maxBody {
		a.body, a.truncated = data[:maxBody], true
	}
	if rerr != nil {
		// The answer was cut while its body was read: the error is evidence (a body cut
		// by the deadline is a timeout, not an answer that fits no binding).
		a.err = rerr
	}
	return a
}

// streamGrace is how long the rest of a stream is read after its first event: an
// error event's stream ends right after it, and read to its end the connection is kept
// for the next request; a stream still going after this long is cut.
const streamGrace = 50 * time.Millisecond

// drainStream reads what follows a stream's first event (at most maxBody bytes) until
// the stream ends or streamGrace passes; then it closes body, which cuts the request
// (its connection is not reused), whatever the operation that met the stream.
func drainStream(body io.ReadCloser) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, io.LimitReader(body, maxBody))
	}()
	t := time.NewTimer(streamGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		_ = body.Close()
		<-done
	}
}

// firstEvent reads a server-sent event stream up to the end of its first event with
// data (the blank line after it), the end of the stream, or limit bytes, whichever
// comes first; the rest is not read.
func firstEvent(r io.Reader, limit int) ([]byte, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, int64(limit)), 4096)
	var out []byte
	data := false
	whole := true // the previous read ended a line
	for {
		line, err := br.ReadSlice('\n')
		starts := whole
		whole = err != bufio.ErrBufferFull
		if !whole {
			err = nil // a long line: keep reading it
		}
		out = append(out, line...)
		trimmed := bytes.TrimSpace(line)
		if starts && bytes.HasPrefix(trimmed, []byte("data:")) {
			data = true
		}
		if starts && whole && data && len(trimmed) == 0 && len(line) > 0 {
			return out, nil
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// evidence fills the HTTP part of an Evidence.
func (h httpAnswer) evidence(ev *wire.Evidence) {
	ev.Err = h.err
	ev.Sent = h.sent
	ev.Answered = h.status != 0
	ev.HTTPStatus = h.status
	ev.ContentType = h.contentType
	ev.Body = snippet(h.body)
}

// seen renders the answer for a Result's detail.
func (h httpAnswer) seen() string {
	if h.status == 0 {
		if h.err != nil {
			return h.err.Error()
		}
		return "no answer"
	}
	var buf [160]byte // one buffer: every HTTP lookup's evidence has one
	b := strconv.AppendInt(append(buf[:0], "HTTP "...), int64(h.status), 10)
	if h.contentType != "" {
		b = append(append(b, ' '), h.contentType...)
	}
	if h.proto != "" && h.proto != "HTTP/1.1" {
		b = append(append(append(b, " ("...), h.proto...), ')')
	}
	if h.wwwAuth != "" {
		b = append(append(b, ", WWW-Authenticate: "...), h.wwwAuth...)
	}
	if h.location != "" {
		b = append(append(b, ", Location: "...), h.location...)
	}
	if h.truncated {
		b = fmt.Appendf(b, ", body over the %d-byte limit (read no further)", maxBody)
	}
	if h.cut != nil {
		b = append(append(b, ", body cut: "...), h.cut.Error()...)
	}
	if h.withheld {
		b = append(append(append(b, " ("...), withheldNote...), ')')
	}
	return string(b)
}

// snippet is the start of a body, printable, for text-recognised answers and details.
func snippet(b []byte) string {
	const n = 120
	if len(b) > n {
		b = b[:n]
	}
	if printableASCII(b) {
		return string(b) // what the rest would make of it, in one copy
	}
	s := strings.ToValidUTF8(string(b), "?")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' {
			return '.'
		}
		return r
	}, s)
}

// printableASCII reports whether b is printable ASCII, newlines and tabs.
func printableASCII(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 || c >= 0x7f) && c != '\n' && c != '\t' {
			return false
		}
	}
	return true
}

// quote renders a body snippet in a detail.
func quote(b []byte) string {
	s := strings.TrimSpace(snippet(b))
	if s == "" {
		return "empty body"
	}
	return string(wire.AppendQuote(nil, s))
}

// earliestExpiry is the earliest NotAfter among certs, zero when there are none.
func earliestExpiry(certs []*x509.Certificate) time.Time {
	var t time.Time
	for _, c := range certs {
		if t.IsZero() || c.NotAfter.Before(t) {
			t = c.NotAfter
		}
	}
	return t
}
