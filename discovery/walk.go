package discovery

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/redact"
)

// Defaults of Options.
const (
	// DefaultMaxDepth is how deep nested catalogs are followed (the catalog given is
	// depth 0).
	DefaultMaxDepth = 4
	// DefaultMaxDocuments bounds the catalog documents one discovery reads.
	DefaultMaxDocuments = 64
	// DefaultMaxBytes bounds each catalog document.
	DefaultMaxBytes = 4 << 20
	// DefaultTimeout bounds each catalog fetch.
	DefaultTimeout = 10 * time.Second
	// maxURLBytes bounds a listed URL; maxNameBytes an identifier or display name.
	maxURLBytes  = 4 << 10
	maxNameBytes = 512
)

// accept is the Accept header of a catalog fetch.
const accept = TypeAICatalog + ", " + TypeLinkset + ";q=0.9, application/json;q=0.8"

// ErrRefused is wrapped by the reason an entry or a catalog URL is not followed.
var ErrRefused = errors.New("refused")

// Options configure Catalog. The zero Options are the defaults.
type Options struct {
	// Client fetches the catalogs (its transport is kept; a2abind adds the redirect
	// and origin rules). nil: a transport of Dial, closed when Catalog returns.
	Client *http.Client
	// Header is sent with each catalog fetch, to the catalog's origin only.
	Header http.Header
	// Dial refuses what is not dialled (link-local and metadata addresses, local
	// sockets) for catalog URLs and listed agents alike; nil is the default policy.
	Dial *addr.DialPolicy
	// Allow, when set, is asked about every catalog URL and every listed agent URL; an
	// error refuses it (the exporter's allowed_targets).
	Allow func(url string) error
	// MaxDepth, MaxDocuments, MaxEntries, MaxBytes and Timeout are the bounds
	// (DefaultMaxDepth, DefaultMaxDocuments, DefaultMaxEntries, DefaultMaxBytes,
	// DefaultTimeout when 0). MaxEntries bounds the entries of one document and the
	// agents of the whole discovery.
	MaxDepth, MaxDocuments, MaxEntries int
	MaxBytes                           int64
	Timeout                            time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxDocuments <= 0 {
		o.MaxDocuments = DefaultMaxDocuments
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// Agent is one A2A agent a catalog lists.
type Agent struct {
	// Target is the URL to probe: the entry's url (a card URL or a base URL). For an
	// inline card it is the catalog's URL with "#" and the identifier, a name only:
	// the card is Card.
	Target string
	// Card is the inline card of an entry without url (its data), else nil.
	Card json.RawMessage
	// Catalog is the URL of the catalog document listing the agent, and CatalogType
	// its type (TypeAICatalog or TypeLinkset).
	Catalog, CatalogType string
	// Identifier and DisplayName are the entry's.
	Identifier, DisplayName string
}

// Refusal is an entry (or a nested catalog) not followed, and why.
type Refusal struct {
	// Catalog is the URL of the document listing the entry; Entry its identifier, or
	// its URL.
	Catalog, Entry string
	Err            error
}

func (r Refusal) Error() string {
	return fmt.Sprintf("%s: entry %q: %v", r.Catalog, r.Entry, r.Err)
}

// Result is what a discovery found.
type Result struct {
	// Agents are the agents listed, in document order (a nested catalog's where it is
	// listed), each target once.
	Agents []Agent
	// Refused are the entries not followed, with the reason.
	Refused []Refusal
	// Ignored counts entries of other types; Repeats entries and catalogs listed again
	// (a cycle is one); Documents the catalog documents read.
	Ignored, Repeats, Documents int
}

// Well-known catalog paths, tried in this order for a catalog URL without a path.
const (
	AICatalogPath  = "/.well-known/ai-catalog.json"
	APICatalogPath = "/.well-known/api-catalog" // RFC 9727
)

// Catalog reads the catalog at catalogURL and the catalogs it nests, and lists the
// A2A agents they name. A URL without a path is a site: its AICatalogPath is read, or
// its APICatalogPath when that answers 404. An error means the catalog itself could
// not be read (or its URL is refused); problems with entries are in Result.Refused.
func Catalog(ctx context.Context, catalogURL string, opts Options) (Result, error) {
	w := &walker{o: opts.withDefaults(), seen: map[string]bool{}, targets: map[string]bool{}}
	if w.o.Client == nil {
		t := addr.Conn{Dial: w.o.Dial}.Transport()
		defer t.CloseIdleConnections()
		w.o.Client = &http.Client{Transport: t}
	}
	a, err := w.o.checkURL(catalogURL)
	if err != nil {
		return Result{}, fmt.Errorf("catalog %s: %w", catalogURL, err)
	}
	if a.Path != "" || a.Query != "" {
		return w.res, w.read(ctx, catalogURL, 0)
	}
	site := strings.TrimSuffix(catalogURL, "/")
	err = w.read(ctx, site+AICatalogPath, 0)
	var se *card.StatusError
	if errors.As(err, &se) && se.StatusCode == http.StatusNotFound {
		if err2 := w.read(ctx, site+APICatalogPath, 0); err2 != nil {
			return w.res, fmt.Errorf("%w (and %v)", err, err2)
		}
		return w.res, nil
	}
	return w.res, err
}

// CheckURL reports whether a listed URL (an agent's or a nested catalog's) may be
// followed: an http(s) URL with a host (CheckTargetURL: no path, no unix:, no
// user:password@), no control character, at most 4 KiB, not an address the dial
// policy refuses, and allowed by Allow.
func (o Options) CheckURL(u string) error {
	_, err := o.checkURL(u)
	return err
}

// checkURL is CheckURL answering the address it parsed.
func (o Options) checkURL(u string) (addr.Address, error) {
	switch {
	case len(u) > maxURLBytes:
		return addr.Address{}, fmt.Errorf("%w: the URL is %d bytes, over %d", ErrRefused, len(u), maxURLBytes)
	case strings.ContainsFunc(u, unicode.IsControl) || !utf8.ValidString(u):
		return addr.Address{}, fmt.Errorf("%w: %q holds a control character or invalid UTF-8", ErrRefused, u)
	}
	a, err := targetAddress(u)
	if err != nil {
		return addr.Address{}, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if err := o.Dial.Check(a); err != nil {
		return addr.Address{}, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if o.Allow != nil {
		if err := o.Allow(u); err != nil {
			return addr.Address{}, fmt.Errorf("%w: %w", ErrRefused, err)
		}
	}
	return a, nil
}

// checkName refuses an identifier or display name a label or a terminal should not
// carry: control characters, invalid UTF-8, over 512 bytes.
func checkName(what, s string) error {
	switch {
	case len(s) > maxNameBytes:
		return fmt.Errorf("%w: the %s is %d bytes, over %d", ErrRefused, what, len(s), maxNameBytes)
	case strings.ContainsFunc(s, unicode.IsControl) || !utf8.ValidString(s):
		return fmt.Errorf("%w: the %s %q holds a control character or invalid UTF-8", ErrRefused, what, s)
	}
	return nil
}

type walker struct {
	o       Options
	res     Result
	seen    map[string]bool // catalog documents read or being read
	targets map[string]bool // agent targets listed
	full    bool            // MaxEntries agents found: the rest is refused once
}

// read fetches one catalog document and walks its entries.
func (w *walker) read(ctx context.Context, u string, depth int) error {
	w.seen[u] = true
	w.res.Documents++
	client := *w.o.Client
	client.Transport = sameOrigin{next: transport(w.o.Client), origin: addr.OriginOf(u)}
	fopts := []card.Option{card.WithHTTPClient(&client), card.WithTimeout(w.o.Timeout), card.WithMaxBytes(w.o.MaxBytes)}
	for k, vs := range w.o.Header {
		for _, v := range vs {
			fopts = append(fopts, card.WithHeader(k, v))
		}
	}
	doc, err := card.FetchDocument(ctx, u, accept, fopts...)
	if err != nil {
		return fmt.Errorf("catalog %w", err)
	}
	w.seen[doc.URL] = true
	parsed, err := Parse(doc.Body, doc.ContentType, w.o.MaxEntries)
	if err != nil {
		return fmt.Errorf("catalog %s: %w", doc.URL, err)
	}
	for _, e := range parsed.Entries {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("catalog %s: %w", doc.URL, err)
		}
		if w.full {
			return nil
		}
		switch {
		case e.Type == TypeAgentCard:
			w.agent(doc.URL, parsed.Type, e)
		case e.Type == TypeAICatalog || e.Type == TypeLinkset || e.Relation == "api-catalog" && e.Type == "":
			w.nested(ctx, doc.URL, e, depth)
		default:
			w.res.Ignored++
		}
	}
	return nil
}

func (w *walker) refuse(catalog string, e Entry, err error) {
	name := e.Identifier
	if name == "" || checkName("identifier", name) != nil {
		name = e.URL
	}
	w.res.Refused = append(w.res.Refused, Refusal{Catalog: catalog, Entry: name, Err: err})
}

// nested follows a nested catalog entry, within the depth and document bounds, once.
func (w *walker) nested(ctx context.Context, catalog string, e Entry, depth int) {
	if err := w.o.CheckURL(e.URL); err != nil {
		w.refuse(catalog, e, fmt.Errorf("nested catalog: %w", err))
		return
	}
	switch {
	case w.seen[e.URL]:
		w.res.Repeats++ // a cycle, or a catalog listed twice: read once
		return
	case depth+1 > w.o.MaxDepth:
		w.refuse(catalog, e, fmt.Errorf("%w: nested catalog %s is deeper than %d catalogs; not read", ErrRefused, e.URL, w.o.MaxDepth))
		return
	case w.res.Documents >= w.o.MaxDocuments:
		w.refuse(catalog, e, fmt.Errorf("%w: nested catalog %s not read: %d catalog documents already read", ErrRefused, e.URL, w.o.MaxDocuments))
		return
	}
	if err := w.read(ctx, e.URL, depth+1); err != nil {
		w.refuse(catalog, e, err)
	}
}

// agent adds an agent entry, or refuses it.
func (w *walker) agent(catalog, catalogType string, e Entry) {
	if err := cmp.Or(checkName("identifier", e.Identifier), checkName("displayName", e.DisplayName)); err != nil {
		w.refuse(catalog, e, err)
		return
	}
	a := Agent{Target: e.URL, Catalog: catalog, CatalogType: catalogType, Identifier: e.Identifier, DisplayName: e.DisplayName}
	switch {
	case e.URL != "": // a URL wins over inline data: it is what clients fetch
		if err := w.o.CheckURL(e.URL); err != nil {
			w.refuse(catalog, e, err)
			return
		}
	case len(e.Data) > 0 && e.Data[0] == '{':
		if e.Identifier == "" {
			w.refuse(catalog, e, fmt.Errorf("%w: an inline card (data) needs an identifier to be named by", ErrRefused))
			return
		}
		a.Target, a.Card = catalog+"#"+e.Identifier, e.Data
	default:
		w.refuse(catalog, e, fmt.Errorf("%w: the entry has neither a url nor an inline card (data object)", ErrRefused))
		return
	}
	if w.targets[a.Target] {
		w.res.Repeats++
		return
	}
	if len(w.res.Agents) == w.o.MaxEntries {
		w.full = true
		w.refuse(catalog, e, fmt.Errorf("%w: more than %d agents listed; the rest are not read", ErrRefused, w.o.MaxEntries))
		return
	}
	w.targets[a.Target] = true
	w.res.Agents = append(w.res.Agents, a)
}

func transport(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// sameOrigin refuses a request that leaves the catalog's origin: a catalog that
// redirects elsewhere would let another host choose what is probed. List the other
// catalog by its own URL instead.
type sameOrigin struct {
	next   http.RoundTripper
	origin addr.Origin
}

func (s sameOrigin) RoundTrip(r *http.Request) (*http.Response, error) {
	if o := addr.OriginOf(r.URL.String()); o != s.origin {
		return nil, fmt.Errorf("%w: a redirect to %s leaves the catalog's origin %s; list that catalog by its own URL", ErrRefused, redact.URL(r.URL.String()), s.origin)
	}
	return s.next.RoundTrip(r)
}
