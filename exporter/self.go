package exporter

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/a2abind/a2abind/probe"
)

// Probe results counted in a2abind_exporter_probes_total.
const (
	resultSuccess  = "success"  // probe_success 1
	resultFailure  = "failure"  // the card was obtained, a finding is an error
	resultNoCard   = "no_card"  // the card could not be obtained
	resultRefused  = "refused"  // the request was refused (bad target, module, policy)
	resultCanceled = "canceled" // the scraper went away before the probe ended
	resultBusy     = "busy"     // max_concurrent_probes were running: answered 503 at once
)

// selfMetrics are the exporter's own series, on /metrics.
type selfMetrics struct {
	reg      *prometheus.Registry
	probes   *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newSelfMetrics(e *probe.Engine) *selfMetrics {
	m := &selfMetrics{
		reg: prometheus.NewRegistry(),
		probes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a2abind_exporter_probes_total",
			Help: "/probe requests by module and result (success, failure, no_card, refused, canceled, busy)."}, []string{"module", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "a2abind_exporter_probe_duration_seconds",
			Help: "How long /probe requests took.", Buckets: prometheus.DefBuckets}, []string{"module"}),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.probes, m.duration,
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "a2abind_exporter_connections_opened_total",
			Help: "TCP connections the probe engine opened (connections are reused from scrape to scrape)."},
			func() float64 { return float64(e.Stats().Dials) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "a2abind_exporter_requests_total",
			Help: "HTTP requests and gRPC calls the probe engine made."},
			func() float64 { return float64(e.Stats().Requests) }),
	)
	return m
}
