package card

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
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
}

// WithHTTPClient fetches cards with the given client (its Transport and TLS settings are
// kept; a2abind still applies its own timeout and redirect limit).
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

// WithStdin sets what Load reads for the source "-". The default is os.Stdin.
func WithStdin(r io.Reader) Option { return func(o *loadOptions) { o.stdin = r } }

func newLoadOptions(opts []Option) *loadOptions {
	o := &loadOptions{timeout: 10 * time.Second, maxBytes: DefaultMaxBytes, maxRedirects: 3, stdin: os.Stdin}
	for _, opt := range opts {
		opt(o)
	}
	if o.client == nil {
		o.client = http.DefaultClient
	}
	return o
}

// Load reads a card from src: "-" for standard input, an http(s) URL (an agent base URL,
// whose card is at WellKnownPath, or the full URL of a card document), or a file path.
func Load(ctx context.Context, src string, opts ...Option) (*Card, error) {
	o := newLoadOptions(opts)
	var (
		data []byte
		err  error
	)
	switch {
	case src == "-":
		data, err = readLimited(o.stdin, o.maxBytes)
		if err != nil {
			return nil, fmt.Errorf("%w: reading standard input: %v", ErrUnavailable, err)
		}
	case strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://"):
		return fetch(ctx, CardURL(src), o)
	default:
		f, ferr := os.Open(src)
		if ferr != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnavailable, ferr)
		}
		defer f.Close()
		data, err = readLimited(f, o.maxBytes)
		if err != nil {
			return nil, fmt.Errorf("%w: reading %s: %v", ErrUnavailable, src, err)
		}
	}
	c, err := parse(data, o.maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	c.Location = src
	return c, nil
}

// Fetch reads a card over HTTP from a base URL or a card URL, like Load.
func Fetch(ctx context.Context, target string, opts ...Option) (*Card, error) {
	return fetch(ctx, CardURL(target), newLoadOptions(opts))
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

func fetch(ctx context.Context, cardURL string, o *loadOptions) (*Card, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	for k, vs := range o.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "application/json")
	client := *o.client
	client.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
		if len(via) > o.maxRedirects {
			return fmt.Errorf("stopped after %d redirects", o.maxRedirects)
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %v", ErrUnavailable, cardURL, err)
	}
	defer resp.Body.Close()
	body, err := readLimited(resp.Body, o.maxBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %v", ErrUnavailable, cardURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: GET %s answered %s%s", ErrUnavailable, cardURL, resp.Status, bodyHint(resp, body))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" || looksHTML(body) {
		return nil, fmt.Errorf("%w: GET %s answered an HTML page, not a JSON card (is the URL the agent's base URL?)", ErrUnavailable, cardURL)
	}
	c, err := parse(body, o.maxBytes)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", cardURL, err)
	}
	c.Location = cardURL
	c.ETag = resp.Header.Get("ETag")
	return c, nil
}

func readLimited(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: document is over the %d-byte limit", ErrMalformed, max)
	}
	return data, nil
}

func looksHTML(body []byte) bool {
	s := strings.ToLower(strings.TrimSpace(string(body[:min(len(body), 64)])))
	return strings.HasPrefix(s, "<!doctype html") || strings.HasPrefix(s, "<html")
}

func bodyHint(resp *http.Response, body []byte) string {
	if looksHTML(body) {
		return " (an HTML error page)"
	}
	if len(body) == 0 {
		return ""
	}
	return ": " + preview([]byte(strings.TrimSpace(string(body))))
}
