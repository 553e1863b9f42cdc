package card

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/internal/telemetry"
)

// WellKnownPath is where an agent serves its card, relative to its base URL.
const WellKnownPath = a2asrv.WellKnownAgentCardPath

// ErrUnavailable is wrapped by every error about a card that could not be obtained
// (missing file, network failure, non-200 answer, HTML instead of JSON).
var ErrUnavailable = errors.New("agent card not obtainable")

// Option configures Load and Fetch.
type Option func(*loadOptions)

type loadOptions struct {
	client       *http.Client
	timeout      time.Duration
	maxBytes     int64
	maxRedirects int
	header       http.Header
	stdin        io.Reader
	conn         addr.Conn // WithConn
	hasConn      bool
	ownClient    bool  // the client was built here from conn: one request per connection
	previous     *Card // WithPrevious
}

// WithHTTPClient fetches cards with the given client (its Transport and TLS settings are
// kept; a2abind still applies its own timeout and redirect limit). Its connections stay
// open for reuse: closing them is the caller's. Without it a fetch closes its connection.
func WithHTTPClient(c *http.Client) Option { return func(o *loadOptions) { o.client = c } }

// WithTimeout bounds one fetch. The default is 10 seconds; the context also bounds it.
func WithTimeout(d time.Duration) Option { return func(o *loadOptions) { o.timeout = d } }

// WithMaxBytes bounds the size of the document. The default is DefaultMaxBytes.
func WithMaxBytes(n int64) Option { return func(o *loadOptions) { o.maxBytes = n } }

// WithMaxRedirects bounds how many redirects a fetch follows. The default is 3.
func WithMaxRedirects(n int) Option { return func(o *loadOptions) { o.maxRedirects = n } }

// WithHeader adds a request header to card fetches (for example Authorization).
func WithHeader(key, value string) Option {
	return func(o *loadOptions) {
		if o.header == nil {
			o.header = http.Header{}
		}
		o.header.Add(key, value)
	}
}

// WithPrevious lets a fetch reuse prev, a card an earlier Load or Fetch read, when the
// document fetched now is byte for byte the one prev was read from: the answer is then
// a copy of prev (its reading and its Lint result are shared, as they depend on the bytes
// alone) with this fetch's Location, Origin and ETag and no signature verification
// (VerifySignatures is to be called again). Any other document is read as without it.
// A nil prev, or one not read from a document, changes nothing.
func WithPrevious(prev *Card) Option { return func(o *loadOptions) { o.previous = prev } }

// WithStdin sets what Load reads for the source "-". The default is os.Stdin.
func WithStdin(r io.Reader) Option { return func(o *loadOptions) { o.stdin = r } }

func newLoadOptions(opts []Option) *loadOptions {
	o := &loadOptions{timeout: 10 * time.Second, maxBytes: DefaultMaxBytes, maxRedirects: 3, stdin: os.Stdin}
	for _, opt := range opts {
		opt(o)
	}
	switch {
	case o.client == nil && o.hasConn:
		o.client, o.ownClient = &http.Client{Transport: o.conn.Transport()}, true
	case o.client == nil:
		o.client = http.DefaultClient
	}
	return o
}

// Load reads a card from src: "-" for standard input, an http(s) URL (an agent base URL,
// whose card is at WellKnownPath, or at LegacyWellKnownPath when WellKnownPath answers
// 404, or the full URL of a card document), or a file path.
// Errors wrap ErrUnavailable (the card could not be obtained) or ErrMalformed (it was
// obtained but is not a readable card); HTTP answers other than 200 are *StatusError.
func Load(ctx context.Context, src string, opts ...Option) (*Card, error) {
	o := newLoadOptions(opts)
	var (
		data []byte
		err  error
	)
	switch {
	case src == "-":
		data, err = ReadLimited(o.stdin, o.maxBytes)
		if err != nil {
			return nil, fmt.Errorf("%w: reading standard input: %w", ErrUnavailable, err)
		}
	case strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://"):
		return fetchAny(ctx, src, o)
	default:
		data, err = readFile(src, o.maxBytes)
		if err != nil {
			return nil, err
		}
	}
	c, err := parse(data, o.maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	c.Location = src
	return c, nil
}

func readFile(path string, maxBytes int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && looksLikeHost(path) {
			return nil, fmt.Errorf("%w: no file %s (for an agent, give its URL: %s://%s)", ErrUnavailable, path, hintScheme(path), path)
		}
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%w: %s is a directory, not a card file", ErrUnavailable, path)
	}
	data, err := ReadLimited(f, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", ErrUnavailable, path, err)
	}
	return data, nil
}

// looksLikeHost reports whether a missing file name was probably meant as an address.
// hintScheme is the scheme to suggest for a host written without one: http on loopback,
// where agents under test listen without TLS, https elsewhere.
func hintScheme(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	if (addr.Address{Host: strings.Trim(host, "[]")}).Loopback() {
		return "http"
	}
	return "https"
}

func looksLikeHost(s string) bool {
	if strings.ContainsAny(s, "/\\") || strings.HasSuffix(s, ".json") {
		return false
	}
	host, _, err := net.SplitHostPort(s)
	return (err == nil && host != "") || strings.Count(s, ".") >= 1 && !strings.Contains(s, " ")
}

// Fetch reads a card over HTTP from a base URL or a card URL, like Load.
func Fetch(ctx context.Context, target string, opts ...Option) (*Card, error) {
	return fetchAny(ctx, target, newLoadOptions(opts))
}

// CardURL returns the card document URL for target: unchanged when target already names
// a path, otherwise the base URL with WellKnownPath appended.
func CardURL(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return target
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = WellKnownPath
	}
	return u.String()
}

// wellKnownUnder returns target's path joined with WellKnownPath, the way a2a-go resolves
// an agent base URL that has a path ("https://h/agents/x" -> ".../agents/x/.well-known/agent-card.json").
// ok is false when target already names a card document.
func wellKnownUnder(target string) (string, bool) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" || u.Path == "" || u.Path == "/" ||
		strings.HasSuffix(u.Path, ".json") || strings.Contains(u.Path, "/.well-known/") {
		return "", false
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + WellKnownPath
	u.RawPath = ""
	return u.String(), true
}

// fetchAny fetches CardURL(target); when target is a base URL with a path that does not
// answer a card, it also tries the well-known path under it. One timeout bounds both.
func fetchAny(ctx context.Context, target string, o *loadOptions) (*Card, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	c, err := fetch(ctx, CardURL(target), o)
	if err == nil {
		return c, nil
	}
	if legacy, ok := legacyWellKnown(target); ok && isNotFound(err) {
		c, lerr := fetch(ctx, legacy, o)
		if lerr != nil {
			return nil, fmt.Errorf("%w (also tried %s: %v)", err, legacy, lerr)
		}
		return c, nil
	}
	alt, ok := wellKnownUnder(target)
	if !ok || !retryUnderBase(err) {
		return nil, err
	}
	c, altErr := fetch(ctx, alt, o)
	if altErr != nil {
		return nil, fmt.Errorf("%w (also tried %s: %v)", err, alt, altErr)
	}
	return c, nil
}

// LegacyWellKnownPath is where agents older than A2A 0.3 serve their card.
const LegacyWellKnownPath = "/.well-known/agent.json"

// legacyWellKnown returns the pre-0.3 card URL of a base URL with no path; ok is false
// for any other target.
func legacyWellKnown(target string) (string, bool) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return "", false
	}
	u.Path, u.RawPath = LegacyWellKnownPath, ""
	return u.String(), true
}

// isNotFound reports whether a fetch was answered 404: nothing at that path.
func isNotFound(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.StatusCode == http.StatusNotFound
}

// retryUnderBase reports whether a failed fetch says "this URL is not a card document"
// (rather than "the agent is unreachable"), so trying the well-known path makes sense.
func retryUnderBase(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.StatusCode == http.StatusNotFound || se.StatusCode == http.StatusMethodNotAllowed
	}
	return errors.Is(err, ErrMalformed) || errors.Is(err, errHTML)
}

// StatusError is a card fetch answered with an HTTP status other than 200.
// It matches ErrUnavailable with errors.Is.
type StatusError struct {
	// URL is the card URL that was requested (after redirects: the last one).
	URL string
	// StatusCode and Status are the HTTP answer, e.g. 404 and "404 Not Found".
	StatusCode int
	Status     string
	// ContentType is the answer's Content-Type header.
	ContentType string
	// HTML is true when the body is an HTML page (typically a proxy or framework error page).
	HTML bool
	// Body is the start of the body, for the message.
	Body string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("GET %s answered %s", e.URL, e.Status)
	switch {
	case e.HTML:
		msg += " (an HTML error page)"
	case e.Body != "":
		msg += ": " + e.Body
	}
	return msg
}

// Is makes errors.Is(err, ErrUnavailable) true for a StatusError.
func (e *StatusError) Is(target error) bool { return target == ErrUnavailable }

// errHTML marks a 200 answer that is an HTML page instead of a card.
var errHTML = errors.New("an HTML page, not a JSON card")

// errorPreviewBytes bounds how much of a non-200 body is read for the message.
const errorPreviewBytes = 4 << 10

// fetch reads one card URL, in a span of its own whose trace context the request carries.
func fetch(ctx context.Context, cardURL string, o *loadOptions) (c *Card, err error) {
	ctx, span := telemetry.Start(ctx, SpanFetch, trace.SpanKindClient)
	defer func() { endFetchSpan(span, cardURL, c, err) }()
	origin := addr.OriginOf(cardURL)
	body, resp, err := get(ctx, cardURL, origin, "application/json", o)
	if err != nil {
		return nil, err
	}
	finalURL := resp.Request.URL.String()
	if c = reread(o.previous, body); c == nil {
		c, err = parse(body, o.maxBytes)
	}
	if err != nil {
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && !strings.Contains(mt, "json") {
			return nil, fmt.Errorf("GET %s (Content-Type %s): %w", finalURL, resp.Header.Get("Content-Type"), err)
		}
		return nil, fmt.Errorf("GET %s: %w", finalURL, err)
	}
	c.Location = finalURL
	c.Origin = origin
	c.ETag = resp.Header.Get("ETag")
	return c, nil
}

// reread is a copy of prev when body is the document prev was read from (parse
// drops a leading BOM before reading and remembers it, so does the comparison), nil
// otherwise. Reading is a pure function of the bytes, so the copy is what parse would
// answer, with the lint memo kept; what a fetch or a verification sets afterwards is not
// carried over.
func reread(prev *Card, body []byte) *Card {
	if prev == nil || prev.doc == nil || bytes.HasPrefix(body, utf8BOM) != prev.doc.bom ||
		!bytes.Equal(bytes.TrimPrefix(body, utf8BOM), prev.doc.raw) {
		return nil
	}
	c := *prev
	c.Location, c.Origin, c.ETag, c.sigs = "", addr.Origin{}, "", nil
	return &c
}

// Document is a JSON document other than a card fetched by FetchDocument.
type Document struct {
	// Body is the document, at most the WithMaxBytes bound.
	Body []byte
	// URL is where it was read (after redirects: the last one); ContentType its
	// Content-Type header.
	URL, ContentType string
}

// FetchDocument GETs a JSON document that is not a card (a catalog listing agents)
// the way a card is fetched: the same client, timeout, size bound, redirect limit,
// header policy (the user's headers never follow a redirect to another origin) and
// errors (ErrUnavailable, *StatusError, ErrMalformed when it is over the bound or an
// HTML page). accept is the Accept header. It does not read the document.
func FetchDocument(ctx context.Context, docURL, accept string, opts ...Option) (Document, error) {
	o := newLoadOptions(opts)
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	body, resp, err := get(ctx, docURL, addr.OriginOf(docURL), accept, o)
	if err != nil {
		return Document{}, err
	}
	return Document{Body: body, URL: resp.Request.URL.String(), ContentType: resp.Header.Get("Content-Type")}, nil
}

// get is the one HTTP GET of a card fetch: bounded, with the redirect and header
// policy (the user's headers stay with origin, docURL's), answering the body of a 200
// that is not an HTML page. The body of resp is closed.
func get(ctx context.Context, docURL string, origin addr.Origin, accept string, o *loadOptions) ([]byte, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, docURL, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	for k, vs := range o.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", accept)
	telemetry.InjectHTTP(ctx, req.Header)
	if o.client == http.DefaultClient || o.ownClient {
		// A card fetch is one request: do not leave its connection idling in the
		// process-wide pool (a caller that reuses connections passes WithHTTPClient).
		req.Close = true
	}
	client := *o.client
	named := addr.NewCredentialPolicy(origin)
	client.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if len(via) > o.maxRedirects {
			return fmt.Errorf("%w after %d redirects", errTooManyRedirects, o.maxRedirects)
		}
		if !named.AllowsURL(next.URL.String()) {
			// Another origin (scheme, host or port): the user's headers stay behind. Go
			// drops only Authorization and Cookie, and only for another host.
			addr.StripHeaders(next.Header, o.header)
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, fetchError(ctx, docURL, o, err)
	}
	defer resp.Body.Close()
	finalURL := resp.Request.URL.String()
	ctype := resp.Header.Get("Content-Type")
	if resp.StatusCode != http.StatusOK {
		preview, _ := io.ReadAll(io.LimitReader(resp.Body, errorPreviewBytes))
		return nil, nil, &StatusError{URL: finalURL, StatusCode: resp.StatusCode, Status: resp.Status, ContentType: ctype,
			HTML: looksHTML(preview, ctype), Body: previewText(preview)}
	}
	if resp.ContentLength > o.maxBytes {
		return nil, nil, fmt.Errorf("GET %s: %w: the document is %d bytes, over the %d-byte limit", finalURL, ErrMalformed, resp.ContentLength, o.maxBytes)
	}
	body, err := readSized(resp.Body, o.maxBytes, resp.ContentLength)
	if err != nil {
		if errors.Is(err, ErrMalformed) {
			return nil, nil, fmt.Errorf("GET %s: %w", finalURL, err)
		}
		return nil, nil, fetchError(ctx, finalURL, o, err)
	}
	if looksHTML(body, ctype) {
		return nil, nil, fmt.Errorf("%w: GET %s answered %w (is it the agent's base URL or its card URL?)", ErrUnavailable, finalURL, errHTML)
	}
	return body, resp, nil
}

var errTooManyRedirects = errors.New("stopped")

// fetchError turns a transport failure into an ErrUnavailable error that says what
// happened in the user's terms, keeping the cause for errors.Is.
func fetchError(ctx context.Context, cardURL string, o *loadOptions, err error) error {
	switch {
	case errors.Is(err, errTooManyRedirects):
		return fmt.Errorf("%w: GET %s: redirected more than %d times (a redirect loop?)", ErrUnavailable, cardURL, o.maxRedirects)
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: GET %s: no complete answer within %s: %w", ErrUnavailable, cardURL, o.timeout, context.DeadlineExceeded)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%w: GET %s: %w", ErrUnavailable, cardURL, context.Canceled)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%w: GET %s: %w", ErrUnavailable, cardURL, err)
}

// ReadLimited reads r to its end, an error past max bytes (card and key documents).
func ReadLimited(r io.Reader, max int64) ([]byte, error) { return readSized(r, max, -1) }

// sizeHintCap bounds the buffer readSized takes on the word of a declared length.
const sizeHintCap = 64 << 10

// readSized is ReadLimited for a body that declares its length (size; -1 when it does
// not): read into a buffer of that size, up to sizeHintCap, instead of io.ReadAll's
// doublings from 512 bytes.
func readSized(r io.Reader, max, size int64) ([]byte, error) {
	lr := io.LimitReader(r, max+1)
	var data []byte
	var err error
	if size > 0 && size <= max {
		buf := bytes.NewBuffer(make([]byte, 0, min(size, sizeHintCap)+bytes.MinRead))
		_, err = buf.ReadFrom(lr)
		data = buf.Bytes()
	} else {
		data, err = io.ReadAll(lr)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: document is over the %d-byte limit", ErrMalformed, max)
	}
	return data, nil
}

// looksHTML reports whether an answer is an HTML page: by Content-Type (unless the body
// is plainly a JSON object) or by its first bytes.
func looksHTML(body []byte, ctype string) bool {
	head := bytes.TrimSpace(body[:min(len(body), 256)])
	if bytes.HasPrefix(head, []byte("{")) {
		return false
	}
	if mt, _, _ := mime.ParseMediaType(ctype); mt == "text/html" || mt == "application/xhtml+xml" {
		return true
	}
	return slices.ContainsFunc(htmlStarts, func(tag string) bool {
		return len(head) >= len(tag) && strings.EqualFold(string(head[:len(tag)]), tag)
	})
}

// htmlStarts are the first bytes of an HTML page, compared case-insensitively.
var htmlStarts = []string{"<!doctype html", "<html", "<head", "<body"}

func previewText(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}
