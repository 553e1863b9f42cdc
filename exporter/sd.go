package exporter

// GET /sd: Prometheus HTTP service discovery from the config's discovery sources
// (targets files and catalogs), for a scrape job that relabels each target to
// /probe?target=.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/discovery"
	"github.com/a2abind/a2abind/probe"
)

// DefaultRefreshInterval is how long a catalog's listing is reused by /sd when the
// config sets no discovery.refresh_interval.
const DefaultRefreshInterval = time.Minute

// Bounds of discovery: a targets file's size, and one refresh of every catalog. A
// catalog document may hold catalogBytesPerTarget per max_targets when that is more
// than discovery.DefaultMaxBytes: a 100,000-entry AI Catalog is about 15 MiB, read
// and listed in 2.4 s with the exporter at 257 MiB (docs/scaling.md).
const (
	maxTargetsFileBytes   = 16 << 20
	refreshBudget         = 30 * time.Second
	catalogBytesPerTarget = 256
)

// Source types in __meta_a2abind_source_type.
const (
	sourceFile       = "file"
	sourceAICatalog  = "ai_catalog"
	sourceAPICatalog = "api_catalog"
)

// Discovery lists the agents GET /sd gives Prometheus (HTTP SD).
//
//	discovery:
//	  files: [/etc/a2abind/agents.txt]
//	  catalogs: [https://example.com/.well-known/ai-catalog.json]
//	  refresh_interval: 1m
type Discovery struct {
	// Files are targets files (one http(s) URL per line, "#" comments: the format of
	// probe --targets), re-read when their size or modification time changes.
	Files []string `yaml:"files"`
	// Catalogs are URLs of AI Catalogs or RFC 9727 API catalogs, fetched as cards are
	// (the dial policy and allowed_targets apply to them and to what they list), read
	// again once RefreshInterval has passed.
	Catalogs []string `yaml:"catalogs"`
	// RefreshInterval is how long a catalog's listing is reused
	// (DefaultRefreshInterval when 0).
	RefreshInterval time.Duration `yaml:"refresh_interval"`
	// MaxTargets bounds the targets /sd lists, over all sources
	// (discovery.DefaultMaxEntries when 0).
	MaxTargets int `yaml:"max_targets"`
}

// check validates d against the config's target policy: every catalog URL must be a
// target /probe would accept. Files are read at start, so a wrong one stops it.
func (d *Discovery) check(c *Config) error {
	if d.RefreshInterval < 0 || d.MaxTargets < 0 {
		return fmt.Errorf("discovery: refresh_interval %s and max_targets %d must not be negative", d.RefreshInterval, d.MaxTargets)
	}
	if d.RefreshInterval == 0 {
		d.RefreshInterval = DefaultRefreshInterval
	}
	if d.MaxTargets == 0 {
		d.MaxTargets = discovery.DefaultMaxEntries
	}
	o := c.discoveryOptions(nil)
	for _, u := range d.Catalogs {
		if err := o.CheckURL(u); err != nil {
			return fmt.Errorf("discovery.catalogs %q: %w", u, err)
		}
	}
	for _, f := range d.Files {
		if _, err := readTargetsFile(f); err != nil {
			return fmt.Errorf("discovery.files: %w", err)
		}
	}
	return nil
}

// discoveryOptions are the bounds and policy of a catalog read: the config's dial
// policy, and a listed URL must be a target /probe accepts (allowed_targets).
func (c *Config) discoveryOptions(client *http.Client) discovery.Options {
	return discovery.Options{Client: client, Dial: c.dial, MaxEntries: c.Discovery.MaxTargets, Allow: c.checkTarget,
		MaxBytes: max(discovery.DefaultMaxBytes, int64(c.Discovery.MaxTargets)*catalogBytesPerTarget)}
}

// readTargetsFile reads a targets file: a regular file, at most maxTargetsFileBytes.
func readTargetsFile(path string) ([]discovery.FileTarget, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (a device or pipe could be read forever)", path)
	}
	lr := &io.LimitedReader{R: f, N: maxTargetsFileBytes + 1}
	ts, err := discovery.ReadTargets(path, lr)
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s is over %d bytes", path, maxTargetsFileBytes)
	}
	return ts, err
}

// sdGroup is one Prometheus HTTP SD target group.
type sdGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

// sdSource is what one source listed when last read.
type sdSource struct {
	groups  []sdGroup
	refused int
	err     error     // of the last read; the groups are then the last good ones
	read    time.Time // when last read (catalogs)
	mod     time.Time // modification time and size when read (files)
	size    int64
	inline  map[string]json.RawMessage // inline cards (catalog entries with data) by target
}

// sd is the /sd state: each source's last listing. One refresh runs at a time.
type sd struct {
	mu      sync.Mutex
	sources map[string]*sdSource
	targets *prometheus.GaugeVec // a2abind_discovery_targets{source,state}
	up      *prometheus.GaugeVec // a2abind_discovery_source_up{source}
	// inline are the inline cards of every source as /sd last listed them, by target;
	// /probe reads them without waiting for a refresh.
	inline atomic.Pointer[map[string]json.RawMessage]
}

func newSD() *sd {
	return &sd{sources: map[string]*sdSource{},
		targets: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "a2abind_discovery_targets",
			Help: "Entries each discovery source listed when last read well: state listed (in /sd) or refused (not probed; the log says why)."},
			[]string{"source", "state"}),
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "a2abind_discovery_source_up",
			Help: "1 when the discovery source's last read succeeded, 0 when it failed (its last good listing is kept)."},
			[]string{"source"})}
}

// serveSD answers the targets of every discovery source as Prometheus HTTP SD JSON,
// refreshing the sources that are due: a file whose size or time changed, a catalog
// read longer than refresh_interval ago.
func (x *Exporter) serveSD(w http.ResponseWriter, r *http.Request) {
	d := x.cfg.Discovery
	maxTargets := cmp.Or(max(d.MaxTargets, 0), discovery.DefaultMaxEntries) // a Config not from ParseConfig
	// A refresh outlives a scraper that gives up, so its result is kept for the next.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), refreshBudget)
	defer cancel()
	x.sd.mu.Lock()
	for _, f := range d.Files {
		x.refreshFile(f)
	}
	for _, u := range d.Catalogs {
		x.refreshCatalog(ctx, u)
	}
	groups := []sdGroup{}
	seen := map[string]bool{}
sources:
	for _, name := range append(append([]string(nil), d.Files...), d.Catalogs...) {
		for _, g := range x.sd.sources[name].groups {
			if seen[g.Targets[0]] {
				continue // listed by an earlier source
			}
			if len(groups) == maxTargets {
				x.log.Warn("discovery: more targets than max_targets; the rest are not listed", "max_targets", maxTargets, "source", name)
				break sources
			}
			seen[g.Targets[0]] = true
			groups = append(groups, g)
		}
	}
	inline := map[string]json.RawMessage{}
	for _, g := range groups {
		for _, src := range x.sd.sources {
			if data, ok := src.inline[g.Targets[0]]; ok {
				inline[g.Targets[0]] = data
			}
		}
	}
	x.sd.inline.Store(&inline)
	x.sd.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(groups)
}

// refreshFile re-reads a targets file when its size or modification time changed.
func (x *Exporter) refreshFile(path string) {
	s := x.sd.source(path)
	st, err := os.Stat(path)
	if err == nil && s.err == nil && !s.mod.IsZero() && st.ModTime().Equal(s.mod) && st.Size() == s.size {
		return
	}
	var ts []discovery.FileTarget
	if err == nil {
		ts, err = readTargetsFile(path)
	}
	if err != nil {
		x.sd.failed(path, s, err, x.log)
		return
	}
	s.mod, s.size, s.err, s.groups, s.refused = st.ModTime(), st.Size(), nil, s.groups[:0], 0
	o := x.cfg.discoveryOptions(nil)
	for _, t := range ts {
		if err := o.CheckURL(t.URL); err != nil {
			s.refused++
			x.log.Warn("discovery: target refused", "source", path, "line", t.Line, "err", err)
			continue
		}
		s.groups = append(s.groups, sdGroup{Targets: []string{t.URL}, Labels: map[string]string{
			"__meta_a2abind_source": path, "__meta_a2abind_source_type": sourceFile,
			"__meta_a2abind_file_line": strconv.Itoa(t.Line)}})
	}
	x.sd.listed(path, s)
}

// refreshCatalog reads a catalog again once refresh_interval has passed since the
// last read, over the probe engine's connections and dial policy.
func (x *Exporter) refreshCatalog(ctx context.Context, u string) {
	s := x.sd.source(u)
	if !s.read.IsZero() && time.Since(s.read) < x.cfg.Discovery.RefreshInterval {
		return
	}
	s.read = time.Now()
	client := x.engine.HTTPClient(probe.WithConn(addr.Conn{Dial: x.cfg.dial}))
	res, err := discovery.Catalog(ctx, u, x.cfg.discoveryOptions(client))
	if err != nil {
		x.sd.failed(u, s, err, x.log)
		return
	}
	s.err, s.groups, s.refused, s.inline = nil, nil, len(res.Refused), map[string]json.RawMessage{}
	for _, r := range res.Refused {
		x.log.Warn("discovery: catalog entry refused", "source", u, "catalog", r.Catalog, "entry", r.Entry, "err", r.Err)
	}
	for _, a := range res.Agents {
		typ := sourceAICatalog
		if a.CatalogType == discovery.TypeLinkset {
			typ = sourceAPICatalog
		}
		labels := map[string]string{"__meta_a2abind_source": u, "__meta_a2abind_source_type": typ, "__meta_a2abind_catalog": a.Catalog,
			"__meta_a2abind_entry_identifier": a.Identifier, "__meta_a2abind_entry_name": a.DisplayName}
		if a.Card != nil {
			// Nothing serves this card at a URL: /probe reads it from here, by the name
			// CATALOG#identifier that /sd gives it.
			s.inline[a.Target] = a.Card
			labels["__meta_a2abind_entry_inline"] = "true"
		}
		s.groups = append(s.groups, sdGroup{Targets: []string{a.Target}, Labels: labels})
	}
	x.sd.listed(u, s)
}

func (s *sd) source(name string) *sdSource {
	src := s.sources[name]
	if src == nil {
		src = &sdSource{}
		s.sources[name] = src
	}
	return src
}

// failed keeps a source's last good listing and says the read failed.
func (s *sd) failed(name string, src *sdSource, err error, log *slog.Logger) {
	src.err = err
	log.Error("discovery: source not read; its last listing is kept", "source", name, "targets", len(src.groups), "err", err)
	s.up.WithLabelValues(name).Set(0)
}

func (s *sd) listed(name string, src *sdSource) {
	s.targets.WithLabelValues(name, "listed").Set(float64(len(src.groups)))
	s.targets.WithLabelValues(name, "refused").Set(float64(src.refused))
	s.up.WithLabelValues(name).Set(1)
}

// inlineCard is the inline card /sd last listed as target: nil and no error when
// target is not one (its card is fetched), an error when the card does not read.
func (s *sd) inlineCard(target string) (*card.Card, error) {
	m := s.inline.Load()
	if m == nil {
		return nil, nil
	}
	data, ok := (*m)[target]
	if !ok {
		return nil, nil
	}
	c, err := card.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("the inline card (data) of the catalog entry %s: %w", target, err)
	}
	c.Location = target
	return c, nil
}
