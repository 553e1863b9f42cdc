package exporter

import (
	"cmp"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/a2abind/a2abind/probe"
)

// Exporter is the multi-target exporter: an http.Handler serving /probe (with
// debug=true, the probe's log as text), /metrics, /sd (Prometheus HTTP service
// discovery from the config's discovery sources), and a page of the recent probes (/)
// with their logs (/logs?id=N), on one probe engine whose connections stay warm from scrape to
// scrape. Close it when done.
type Exporter struct {
	cfg    *Config
	engine *probe.Engine
	self   *selfMetrics
	log    *slog.Logger
	mux    *http.ServeMux
	slots  chan struct{} // one per running probe, max_concurrent_probes of them
	recent history       // the recent probes shown on /
	sd     *sd           // the discovery sources' listings, for /sd
	last   *lastCards    // the card of each (module, target)'s last scrape
}

// Option configures New.
type Option func(*options)

type options struct {
	log    *slog.Logger
	engine []probe.EngineOption
}

// WithLogger logs refused and failed probes to l (the default discards them).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithEngineOptions adds options to the probe engine (caps, idle timeout). The
// config's dial policy is applied to every probe whatever they say.
func WithEngineOptions(opts ...probe.EngineOption) Option {
	return func(o *options) { o.engine = append(o.engine, opts...) }
}

// IdleTimeout is how long the exporter's probe engine keeps an unused connection: longer
// than a 1 m scrape interval, so that consecutive scrapes of an agent reuse it (unless
// the agent closes it first). WithEngineOptions(probe.WithIdleTimeout(...)) overrides it.
const IdleTimeout = 2 * time.Minute

// New returns an Exporter for cfg (DefaultConfig when nil).
func New(cfg *Config, opts ...Option) *Exporter {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	o := options{log: slog.New(slog.NewTextHandler(io.Discard, nil)), engine: []probe.EngineOption{probe.WithIdleTimeout(IdleTimeout)}}
	for _, opt := range opts {
		opt(&o)
	}
	x := &Exporter{cfg: cfg, engine: probe.NewEngine(o.engine...), log: o.log, mux: http.NewServeMux(),
		slots: make(chan struct{}, cmp.Or(max(cfg.MaxConcurrentProbes, 0), DefaultMaxConcurrentProbes))}
	x.self = newSelfMetrics(x.engine)
	x.sd = newSD()
	x.last = newLastCards()
	x.self.reg.MustRegister(x.sd.targets, x.sd.up)
	x.mux.HandleFunc("GET /probe", x.serveProbe)
	x.mux.Handle("GET /metrics", promhttp.HandlerFor(x.self.reg, promhttp.HandlerOpts{}))
	x.mux.HandleFunc("GET /logs", x.serveLogs)
	x.mux.HandleFunc("GET /sd", x.serveSD)
	x.mux.HandleFunc("GET /{$}", x.serveIndex)
	return x
}

// ServeHTTP serves /probe, /metrics, /sd, / and /logs.
func (x *Exporter) ServeHTTP(w http.ResponseWriter, r *http.Request) { x.mux.ServeHTTP(w, r) }

// Close closes the probe engine's connections.
func (x *Exporter) Close() error { return x.engine.Close() }
