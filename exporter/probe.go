package exporter

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// scrapeTimeoutHeader is the header in which Prometheus sends its scrape timeout.
const scrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// serveProbe is GET /probe?target=URL[&module=NAME]: it fetches the card, probes its
// interfaces within the scrape timeout and answers with the series of the result.
func (x *Exporter) serveProbe(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := r.URL.Query()
	target, name := q.Get("target"), q.Get("module")
	if name == "" {
		name = DefaultModule
	}
	mod, ok := x.cfg.Modules[name]
	switch {
	case target == "":
		x.refuse(w, "", http.StatusBadRequest, "the target parameter is missing: /probe?target=https://agent.example.com")
		return
	case !ok:
		x.refuse(w, "", http.StatusBadRequest, "unknown module "+strconv.Quote(name)+": the config file defines the modules")
		return
	}
	if err := x.cfg.checkTarget(target); err != nil {
		x.refuse(w, name, http.StatusForbidden, err.Error())
		return
	}
	header, err := mod.headers()
	if err != nil {
		x.refuse(w, name, http.StatusInternalServerError, "module "+strconv.Quote(name)+": "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), budget(r.Header, mod.Timeout))
	defer cancel()
	p := x.probe(ctx, target, mod, header)
	p.duration = time.Since(start)

	result := resultSuccess
	switch {
	case r.Context().Err() != nil:
		result = resultCanceled
	case p.fetchErr != nil:
		result = resultNoCard
		x.log.Info("card not obtainable", "target", target, "module", name, "err", p.fetchErr)
	case !p.ok():
		result = resultFailure
	}
	x.self.probes.WithLabelValues(name, result).Inc()
	x.self.duration.WithLabelValues(name).Observe(p.duration.Seconds())
	promhttp.HandlerFor(p.registry(), promhttp.HandlerOpts{}).ServeHTTP(w, r)
}

// probe fetches the card of target and probes its first mod.MaxInterfaces interfaces.
func (x *Exporter) probe(ctx context.Context, target string, mod Module, header http.Header) probed {
	conn := card.Conn{Header: header, RootCAs: mod.roots, Insecure: mod.TLS.InsecureSkipVerify,
		Dial: x.cfg.dial, MaxInterfaces: mod.MaxInterfaces}
	opts := []probe.Option{probe.WithConn(conn), probe.WithTimeout(mod.Timeout)}
	certs := &certRecorder{next: x.engine.HTTPClient(opts...).Transport}

	var p probed
	fetchStart := time.Now()
	c, err := card.Load(ctx, target, card.WithConn(conn), card.WithTimeout(mod.Timeout),
		card.WithHTTPClient(&http.Client{Transport: certs}))
	p.fetchDuration = time.Since(fetchStart)
	p.certExpiry = certs.earliest()
	if err != nil {
		p.fetchErr = err
		return p
	}
	p.declared = len(c.Interfaces)
	p.card = c
	p.results = x.engine.Card(ctx, c, opts...)
	p.report = probe.Diagnose(c, p.results)
	for _, r := range p.results {
		p.certExpiry = earlier(p.certExpiry, r.CertExpiry)
	}
	return p
}

// refuse answers a /probe request that cannot be probed: a plain-text error the scrape
// shows (up is 0 for the target), counted as refused.
func (x *Exporter) refuse(w http.ResponseWriter, module string, status int, msg string) {
	x.log.Warn("probe refused", "status", status, "reason", msg)
	x.self.probes.WithLabelValues(module, resultRefused).Inc()
	http.Error(w, msg, status)
}

// budget is the probe's time: the module's timeout, or less when the scrape timeout
// Prometheus sends is shorter (minus a margin for the answer to travel back).
func budget(h http.Header, timeout time.Duration) time.Duration {
	s, err := strconv.ParseFloat(h.Get(scrapeTimeoutHeader), 64)
	if err != nil || s <= 0 || s > 1e6 {
		return timeout
	}
	scrape := time.Duration(s * float64(time.Second))
	margin := min(500*time.Millisecond, scrape/10)
	return min(timeout, scrape-margin)
}

// certRecorder notes the earliest certificate expiry of the answers it passes on.
type certRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	min  time.Time
}

func (c *certRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil && resp.TLS != nil {
		c.mu.Lock()
		for _, cert := range resp.TLS.PeerCertificates {
			c.min = earlier(c.min, cert.NotAfter)
		}
		c.mu.Unlock()
	}
	return resp, err
}

func (c *certRecorder) earliest() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.min
}

// earlier is the earlier of two times, a zero time meaning none.
func earlier(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}
