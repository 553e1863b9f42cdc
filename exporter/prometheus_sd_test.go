package exporter_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestPrometheusDiscoversThroughSD runs a real Prometheus whose only scrape job reads
// the exporter's /sd (http_sd_configs) and relabels each target to /probe?target=, as
// docs/exporter.md says. The healthy agent is listed in a targets file, the seed
// incident's agent in an AI Catalog; both are discovered and scraped, with the labels
// the relabelling keeps from the entry; an entry the policy refuses is never scraped.
// Prometheus also scrapes the exporter's /metrics, and then every query of the Grafana
// dashboard evaluates there, with data (the conditional metrics aside).
func TestPrometheusDiscoversThroughSD(t *testing.T) {
	t.Parallel()
	healthy := labtest.Start(t, lab.Healthy()...)
	seed := labtest.Start(t, lab.Seed()...)
	var body atomic.Value
	body.Store(catalogDoc(agentEntry("urn:agent:seed", "Seed agent", seed.BaseURL),
		agentEntry("urn:agent:metadata", "", "http://169.254.169.254/")))
	cat, _ := catalogServer(t, &body)
	file := filepath.Join(t.TempDir(), "agents.txt")
	writeFile(t, file, healthy.BaseURL+"\n")
	cfg := mustConfig(t, fmt.Sprintf("discovery: {files: [%q], catalogs: [%q], refresh_interval: 1s}", file, cat.URL+"/catalog"))
	base := start(t, cfg)
	exporterAddr := strings.TrimPrefix(base, "http://")
	promAddr := startPrometheus(t, fmt.Sprintf(`
global:
  scrape_interval: 2s
  scrape_timeout: 2s
scrape_configs:
  - job_name: a2a
    metrics_path: /probe
    http_sd_configs:
      - url: %q
        refresh_interval: 2s
%s  - job_name: a2abind-exporter
    static_configs:
      - targets: [%q]
`, base+"/sd", probeRelabel(exporterAddr, "__meta_a2abind_source_type", "source_type",
		"__meta_a2abind_entry_identifier", "agent"), exporterAddr))

	eventually(t, promAddr, "probe_success", func(r map[string]string) bool {
		return r[healthy.BaseURL] == "1" && r[seed.BaseURL] == "0" && len(r) == 2
	})
	eventually(t, promAddr, `count by (instance) (a2abind_interface_up{source_type="ai_catalog", agent="urn:agent:seed"})`,
		func(r map[string]string) bool { return r[seed.BaseURL] == "3" })
	eventually(t, promAddr, `a2abind_findings_by_code{code="preferred-not-served", source_type="file"}`,
		func(r map[string]string) bool { return r[healthy.BaseURL] == "0" })
	if r, err := query(t.Context(), promAddr, `up{instance=~".*169.254.*"}`); err != nil || len(r) != 0 {
		t.Errorf("the refused metadata entry was scraped: %v %v", r, err)
	}

	vars := strings.NewReplacer("$job", ".*", "$instance", ".*", "$__rate_interval", "30s", "$__range", "1h")
	for _, expr := range dashboardQueries(t) {
		q := vars.Replace(expr)
		conditional := slices.ContainsFunc(conditionalMetrics, func(m string) bool { return strings.Contains(q, m) })
		if conditional {
			if _, err := query(t.Context(), promAddr, q); err != nil {
				t.Errorf("dashboard query %q: %v", q, err)
			}
			continue
		}
		eventually(t, promAddr, q, func(r map[string]string) bool { return len(r) > 0 })
	}
}
