package exporter

import (
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/a2abind/a2abind/internal/redact"
	"github.com/a2abind/a2abind/internal/wording"
)

// The exporter's views, in blackbox_exporter's conventions: /probe?...&debug=true
// answers the probe's log and the series it would have returned as text/plain, and /
// lists the recent probes with links to that same output (/logs?id=N), kept in a
// bounded ring.

// Bounds of the recent-probes ring: how many probes it keeps and how much of each
// probe's debug output.
const (
	recentProbes   = 100
	maxDebugOutput = 64 << 10
)

// recent is one probe of the ring.
type recent struct {
	ID       int64
	Time     time.Time
	Module   string
	Target   string
	Result   string
	Duration time.Duration
	debug    func() string // renders the probe's debug output when it is asked for
}

// history is the ring of recent probes.
type history struct {
	mu    sync.Mutex
	next  int64
	items []recent // oldest first, at most recentProbes
}

// add keeps r, dropping the oldest probe when the ring is full, and returns its id.
func (h *history) add(r recent) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	r.ID = h.next
	if len(h.items) == recentProbes {
		h.items = slices.Delete(h.items, 0, 1)
	}
	h.items = append(h.items, r)
	return r.ID
}

// newestFirst is a copy of the ring, newest first.
func (h *history) newestFirst() []recent {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.items)
	slices.Reverse(out)
	return out
}

// get is the probe with this id, if the ring still holds it.
func (h *history) get(id int64) (recent, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.items {
		if r.ID == id {
			return r, true
		}
	}
	return recent{}, false
}

// debugOutput is blackbox_exporter's debug page for one probe: the probe's log, the
// series the scrape would have returned, and the module (header names only, never
// their values), bounded to maxDebugOutput, with the secrets of hide (the target's, the
// module's header values) hidden whatever the agent echoed of them.
func debugOutput(log []byte, mfs []*dto.MetricFamily, name string, mod Module, hide *redact.Secrets) string {
	var b strings.Builder
	b.WriteString("Logs for the probe:\n")
	b.Write(log)
	b.WriteString("\n\nMetrics that would have been returned:\n")
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		_ = enc.Encode(mf)
	}
	b.WriteString("\n\nModule configuration:\n")
	fmt.Fprintf(&b, "module: %s\ntimeout: %s\nmax_interfaces: %d\n", strconv.Quote(name), mod.Timeout, mod.MaxInterfaces)
	if len(mod.CredentialHosts) > 0 {
		fmt.Fprintf(&b, "credential_hosts: %q\n", mod.CredentialHosts)
	}
	if len(mod.Headers) > 0 {
		names := make([]string, 0, len(mod.Headers))
		for k := range mod.Headers {
			names = append(names, k)
		}
		slices.Sort(names)
		fmt.Fprintf(&b, "headers (values not shown): %q\n", names)
	}
	fmt.Fprintf(&b, "tls: {insecure_skip_verify: %t, ca_file: %q}\n", mod.TLS.InsecureSkipVerify, mod.TLS.CAFile)
	s := escapeControls(hide.String(b.String()))
	if len(s) > maxDebugOutput {
		s = s[:maxDebugOutput] + "\n... cut at " + strconv.Itoa(maxDebugOutput) + " bytes\n"
	}
	return s
}

// escapeControls escapes each line of s for a terminal or browser (wording.Escape),
// keeping the line breaks: the series carry what a card declared, and the debug output
// is read in terminals and browsers.
func escapeControls(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = wording.Escape(l)
	}
	return strings.Join(lines, "\n")
}

// serveDebug answers a probe's debug output as text/plain.
func serveDebug(w http.ResponseWriter, out string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte(out))
}

// serveLogs is GET /logs?id=N: the debug output of a recent probe.
func (x *Exporter) serveLogs(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.URL.Query().Get("id"), 10, 64)
	if err != nil {
		http.Error(w, "want /logs?id=N, N a probe listed on /", http.StatusBadRequest)
		return
	}
	p, ok := x.recent.get(id)
	if !ok {
		http.Error(w, "probe "+strconv.FormatInt(id, 10)+" is not among the "+strconv.Itoa(recentProbes)+" most recent", http.StatusNotFound)
		return
	}
	serveDebug(w, p.debug())
}

// indexPage is the landing page: how to probe, and the recent probes.
var indexPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>a2abind exporter</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:.2em .8em;text-align:left;border-bottom:1px solid #ddd}.failure,.no_card{color:#b00}.success{color:#070}</style>
</head><body>
<h1>a2abind exporter</h1>
<p>Probe an A2A agent: <code>/probe?target=https://agent.example.com&amp;module=default</code> (the Prometheus text format);
add <code>&amp;debug=true</code> for the probe's log. <a href="metrics">/metrics</a>: the exporter's own metrics.</p>
<h2>Recent probes</h2>
{{if .}}<table id="recent">
<thead><tr><th>When (UTC)</th><th>Module</th><th>Target</th><th>Result</th><th>Duration</th><th>Debug</th></tr></thead>
<tbody>{{range .}}<tr><td>{{.Time.UTC.Format "2006-01-02 15:04:05"}}</td><td>{{.Module}}</td><td class="target">{{.Target}}</td><td class="{{.Result}}">{{.Result}}</td><td>{{printf "%.3f s" .Duration.Seconds}}</td><td><a href="logs?id={{.ID}}">logs</a></td></tr>
{{end}}</tbody></table>
{{else}}<p id="recent">No probe yet.</p>
{{end}}</body></html>
`))
})

func (x *Exporter) serveIndex(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	if err := indexPage().Execute(w, x.recent.newestFirst()); err != nil {
		x.log.Warn("rendering /", "err", err)
	}
}
