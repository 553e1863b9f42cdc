package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/redact"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/signature"
	"github.com/a2abind/a2abind/wire"
)

// scrapeTimeoutHeader is the header in which Prometheus sends its scrape timeout.
const scrapeTimeoutHeader = "X-Prometheus-Scrape-Timeout-Seconds"

// serveProbe is GET /probe?target=URL[&module=NAME][&debug=true]: it fetches the
// card, probes its interfaces within the scrape timeout and answers with the series of
// the result, or with debug=true the probe's log, series and module as text. Every
// probe is kept in the recent-probes ring.
func (x *Exporter) serveProbe(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	q := r.URL.Query()
	target, name := q.Get("target"), q.Get("module")
	hide := redact.New(nil, target) // and the module's header values, once read
	if name == "" {
		name = DefaultModule
	}
	mod, ok := x.cfg.Modules[name]
	switch {
	case target == "":
		x.refuse(w, "", http.StatusBadRequest, "the target parameter is missing: /probe?target=https://agent.example.com", hide)
		return
	case !ok:
		x.refuse(w, "", http.StatusBadRequest, "unknown module "+strconv.Quote(name)+": the config file defines the modules", hide)
		return
	}
	if err := x.cfg.checkTarget(target); err != nil {
		x.refuse(w, name, http.StatusForbidden, err.Error(), hide)
		return
	}
	if err := mod.checkCredentialTarget(target); err != nil {
		x.refuse(w, name, http.StatusForbidden, err.Error(), hide)
		return
	}
	timeout := budget(r.Header, mod.Timeout)
	ctx, cancel := context.WithDeadline(r.Context(), start.Add(timeout))
	defer cancel()
	if !x.acquire(ctx, timeout/2) {
		x.log.Warn("probe refused: busy", "target", hide.String(target), "module", name, "max_concurrent_probes", cap(x.slots))
		x.self.probes.WithLabelValues(name, resultBusy).Inc()
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("busy: %d probes were running for half of the scrape's time (max_concurrent_probes); retry later", cap(x.slots)), http.StatusServiceUnavailable)
		return
	}
	defer func() { <-x.slots }()
	header, err := mod.headers()
	if err != nil {
		x.refuse(w, name, http.StatusInternalServerError, "module "+strconv.Quote(name)+": "+err.Error(), hide)
		return
	}
	hide = redact.Join(hide, redact.New(header))
	ctx = redact.NewContext(ctx, hide)
	logs := newProbeLog()
	plog := slog.New(telemetry.LogHandler(logs))
	plog.Info("beginning probe", "target", target, "module", name, "timeout_seconds", timeout.Seconds())
	p := x.probe(ctx, target, name, mod, header, plog)
	p.hide, p.duration = hide, time.Since(start)

	result := resultSuccess
	switch {
	case r.Context().Err() != nil:
		result = resultCanceled
	case p.fetchErr != nil:
		result = resultNoCard
		x.log.Info("card fetch failed", "target", hide.String(target), "module", name, "err", hide.String(p.fetchErr.Error()))
	case !p.ok():
		result = resultFailure
	}
	x.self.probes.WithLabelValues(name, result).Inc()
	x.self.duration.WithLabelValues(name).Observe(p.duration.Seconds())
	plog.Info("probe ended", "result", result, "success", p.ok(), "duration_seconds", p.duration.Seconds())
	// The series are rendered once, for the answer and for the debug output, which is
	// written out only when it is asked for (debug=true, or /logs), its log too.
	mfs := p.families()
	debug := func() string { return debugOutput(logs.text(hide), mfs, name, mod, hide) }
	x.recent.add(recent{Time: start, Module: name, Target: hide.String(target), Result: result, Duration: p.duration, debug: debug})
	if on, _ := strconv.ParseBool(q.Get("debug")); on {
		serveDebug(w, debug())
		return
	}
	writeSeries(w, r, mfs)
}

// probe fetches the card of target and probes its first mod.MaxInterfaces interfaces
// with module name's config mod. The last scrape's card of (name, target) is checked
// while the card is fetched again (early.go), and neither read nor checked again when
// the fetched document is byte for byte the same (x.last). Each step is logged on plog,
// for the debug output.
func (x *Exporter) probe(ctx context.Context, target, name string, mod Module, header http.Header, plog *slog.Logger) probed {
	conn := addr.Conn{Header: header, RootCAs: mod.roots, Insecure: mod.TLS.InsecureSkipVerify,
		Dial: x.cfg.dial, MaxInterfaces: mod.MaxInterfaces, CredentialHosts: mod.CredentialHosts}
	opts := []probe.Option{probe.WithConn(conn), probe.WithTimeout(mod.Timeout)}
	certs := &certRecorder{next: scopedTransport{next: x.engine.HTTPClient(opts...).Transport,
		origin: addr.OriginOf(target), cfg: x.cfg}}

	var p probed
	ctx, span := probe.StartTarget(ctx, target)
	defer func() { span.End(p.card, p.results, p.fetchErr) }()
	fetchStart := time.Now()
	c, err := x.sd.inlineCard(target) // a catalog's inline card, as /sd listed it
	fetched := c == nil && err == nil
	var ahead *early
	if fetched {
		prev, prevDoc := x.last.get(name, target)
		ahead = x.startEarly(ctx, prev, prevDoc, mod.MaxInterfaces, opts)
		defer ahead.stop()
		c, err = card.Load(ctx, target, card.WithConn(conn), card.WithTimeout(mod.Timeout),
			card.WithHTTPClient(&http.Client{Transport: certs}), card.WithPrevious(prev))
	}
	p.fetchDuration = time.Since(fetchStart)
	p.certExpiry = certs.earliest()
	if fetched {
		doc := c.Document() // nil without a card
		x.last.put(name, target, c, doc)
		p.results, p.capabilities, p.early = ahead.take(doc)
	}
	if err != nil {
		p.fetchErr = err
		plog.ErrorContext(ctx, "card fetch failed", "err", err, "duration_seconds", p.fetchDuration.Seconds())
		if ahead != nil {
			plog.InfoContext(ctx, "the check of the last scrape's card, started while the card was fetched, was canceled and dropped")
		}
		return p
	}
	p.declared = len(c.Interfaces)
	p.card = c
	plog.InfoContext(ctx, "card fetched", "url", c.Location, "shape", c.Shape, "name", c.Name, "interfaces", len(c.Interfaces),
		"probed", min(len(c.Interfaces), mod.MaxInterfaces), "duration_seconds", p.fetchDuration.Seconds())
	if signature.Signed(c) || len(mod.Signatures.keys) > 0 {
		vopts := []signature.VerifyOption{signature.WithJKUOrigins(mod.Signatures.JKUOrigins...),
			signature.WithJKUClient(&http.Client{Transport: certs.next})}
		for _, ks := range mod.Signatures.keys {
			vopts = append(vopts, signature.WithKeySet(ks))
		}
		if v, err := signature.VerifySignatures(ctx, c, vopts...); err != nil {
			plog.WarnContext(ctx, "signatures not verified", "err", err)
		} else {
			for _, sc := range v.Signatures {
				plog.InfoContext(ctx, "signature", "index", sc.Index, "status", sc.Status, "kid", sc.KeyID, "alg", sc.Algorithm, "reason", sc.Reason)
			}
		}
	}
	switch {
	case p.early:
		plog.InfoContext(ctx, "interfaces checked while the card was fetched: it is the last scrape's card, byte for byte")
	case ahead != nil:
		plog.InfoContext(ctx, "the card changed since the last scrape: the check of the last scrape's card, started while the card was fetched, was canceled and dropped")
		fallthrough
	default:
		p.results, p.capabilities = x.probeAllowed(ctx, c, mod.MaxInterfaces, opts)
	}
	for _, r := range p.results {
		plog.InfoContext(ctx, "interface", "url", r.Interface.URL, "binding", r.Interface.Binding, "protocol_version", r.Interface.ProtocolVersion,
			"outcome", r.Outcome, "latency_seconds", r.Latency.Seconds(), "detail", r.Detail)
	}
	for _, cr := range p.capabilities {
		plog.InfoContext(ctx, "capability", "name", cr.Name, "declared", cr.Declared(), "verdict", cr.Verdict, "calls", len(cr.Calls))
	}
	p.report = probe.Diagnose(c, p.results, p.capabilities...)
	for _, f := range p.report.Findings {
		plog.InfoContext(ctx, "finding", "code", f.Code, "severity", f.Severity, "message", f.Message)
	}
	for _, r := range p.results {
		p.certExpiry = earlier(p.certExpiry, r.CertExpiry)
	}
	return p
}

// probeAllowed checks (probe.Check: interfaces and capabilities) the first limit
// interfaces of c that allowed_targets lets the exporter reach; the others are reported
// Blocked, nothing sent to them, and no capability is asked there.
func (x *Exporter) probeAllowed(ctx context.Context, c *card.Card, limit int, opts []probe.Option) ([]probe.Result, []probe.CapabilityResult) {
	ifaces := c.Interfaces[:min(limit, len(c.Interfaces))]
	reach := *c
	reach.Interfaces = make([]card.Interface, 0, len(ifaces))
	blocked := map[int]probe.Result{}
	for n, i := range ifaces {
		if err := x.cfg.checkInterface(c.Origin, i); err != nil {
			blocked[n] = probe.Result{Interface: i, Outcome: wire.Blocked, Detail: "not probed: " + err.Error()}
			continue
		}
		reach.Interfaces = append(reach.Interfaces, i)
	}
	if len(blocked) == 0 {
		ch := x.engine.Check(ctx, c, opts...)
		return ch.Results, ch.Capabilities
	}
	ch := x.engine.Check(ctx, &reach, opts...)
	probed := ch.Results
	results := make([]probe.Result, 0, len(ifaces))
	for n := range ifaces {
		if r, ok := blocked[n]; ok {
			results = append(results, r)
			continue
		}
		results = append(results, probed[0])
		probed = probed[1:]
	}
	return results, ch.Capabilities
}

// refuse answers a /probe request that cannot be probed: a plain-text error the scrape
// shows (up is 0 for the target), counted as refused; msg hides the secrets of hide.
func (x *Exporter) refuse(w http.ResponseWriter, module string, status int, msg string, hide *redact.Secrets) {
	msg = hide.String(msg)
	x.log.Warn("probe refused", "status", status, "reason", msg)
	x.self.probes.WithLabelValues(module, resultRefused).Inc()
	http.Error(w, msg, status)
}

// acquire takes a probe slot (max_concurrent_probes), waiting for one at most wait (and
// while ctx lasts): a scrape beyond the cap is refused only when it could not start
// within half of its time, so a burst of scrapers queues briefly instead of failing.
func (x *Exporter) acquire(ctx context.Context, wait time.Duration) bool {
	select {
	case x.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case x.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
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
