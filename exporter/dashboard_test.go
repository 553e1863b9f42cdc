package exporter_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// dashboardFile is the Grafana dashboard shipped beside the alerting rules.
var dashboardFile = filepath.Join("..", "deploy", "grafana", "a2abind-dashboard.json")

// dashboardQueries returns every PromQL expression of the dashboard: the panels'
// targets and the template variables' queries.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID, Title string
		Templating struct {
			List []struct {
				Name, Type string
				Query      any
			}
		}
		Panels []struct {
			ID          int
			Type, Title string
			Description string
			Datasource  struct{ UID string }
			GridPos     struct{ X, W int }
			Targets     []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("the dashboard has no uid or title")
	}
	var exprs []string
	for _, v := range d.Templating.List {
		if q, ok := v.Query.(map[string]any); ok && v.Type == "query" {
			exprs = append(exprs, strings.TrimSuffix(strings.TrimPrefix(q["query"].(string), "label_values("), ", "+v.Name+")"))
		}
	}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d repeats", p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("panel %q is wider than the grid", p.Title)
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource.UID != "${datasource}" || p.Description == "" || len(p.Targets) == 0 {
			t.Errorf("panel %q: data source %q, description %q, %d queries; want ${datasource}, a description and a query", p.Title, p.Datasource.UID, p.Description, len(p.Targets))
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	return exprs
}

// metricName finds the metric names a query reads (histogram suffixes included).
var metricName = regexp.MustCompile(`\b(?:a2abind|probe)_[a-z0-9_]+\b`)

// conditionalMetrics are exported only when there is something to say (a key that
// expires, a TLS certificate): a plain lab agent does not produce them, so they are
// checked against the exporter's source instead.
var conditionalMetrics = []string{"a2abind_card_signing_key_expiry", "probe_ssl_earliest_cert_expiry"}

// TestDashboardNamesExportedMetrics: every metric the dashboard queries is one the
// exporter really exports, read from its answers (/probe of the seed agent, /metrics
// after /sd), so a misspelt or renamed metric is a panel that would stay empty.
func TestDashboardNamesExportedMetrics(t *testing.T) {
	t.Parallel()
	seed := labtest.Start(t, lab.Seed()...)
	file := filepath.Join(t.TempDir(), "agents.txt")
	writeFile(t, file, seed.BaseURL+"\n")
	base := start(t, mustConfig(t, fmt.Sprintf("discovery: {files: [%q]}", file)))
	exported := map[string]bool{}
	getSD(t, base)
	for _, path := range []string{probePath(seed.BaseURL), "/metrics"} {
		code, body, fams := scrape(t, base, path)
		if code != 200 {
			t.Fatalf("%s: %d %s", path, code, body)
		}
		for name := range fams {
			exported[name] = true
		}
	}
	source, err := os.ReadFile("metrics.go")
	if err != nil {
		t.Fatal(err)
	}
	queried := 0
	for _, expr := range dashboardQueries(t) {
		for _, m := range metricName.FindAllString(expr, -1) {
			queried++
			switch {
			case exported[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m, "_bucket"), "_sum"), "_count")] || exported[m]:
			case slices.Contains(conditionalMetrics, m) && strings.Contains(string(source), `"`+m+`"`):
			default:
				t.Errorf("the dashboard queries %s (in %q), which the exporter does not export", m, expr)
			}
		}
	}
	if queried < 15 {
		t.Errorf("the dashboard queries %d metrics; want the fleet, interface, trust, exporter and discovery panels", queried)
	}
}
