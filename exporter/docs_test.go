package exporter_test

import (
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/lab"
)

// docBlocks returns the YAML blocks of docs/exporter.md in order: the exporter config,
// the scrape config, the prometheus-operator Probe. The alerting rules are a file,
// deploy/prometheus/a2abind-rules.yml.
func docBlocks(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "exporter.md"))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) != 3 {
		t.Fatalf("docs/exporter.md has %d YAML blocks, want 3 (config, scrape config, Probe)", len(blocks))
	}
	return blocks
}

// TestDocsConfigParses: the documented exporter config is one the exporter accepts
// (its files and variable supplied).
func TestDocsConfigParses(t *testing.T) {
	dir := t.TempDir()
	token, ca := filepath.Join(dir, "token"), filepath.Join(dir, "ca.pem")
	cert, _, err := lab.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(token, []byte("t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2A_API_KEY", "k")
	jwks := filepath.Join(dir, "jwks.json")
	if err := os.WriteFile(jwks, []byte(`{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	agents := filepath.Join(dir, "agents.txt")
	if err := os.WriteFile(agents, []byte("https://billing.agents.example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := strings.NewReplacer("/run/secrets/a2a-token", token, "/etc/a2abind/ca.pem", ca,
		"/etc/a2abind/agents-jwks.json", jwks, "/etc/a2abind/agents.txt", agents).Replace(docBlocks(t)[0])
	cfg, err := exporter.ParseConfig([]byte(doc))
	if err != nil {
		t.Fatalf("the documented config: %v", err)
	}
	if len(cfg.AllowedTargets) != 2 || len(cfg.Modules) != 2 || len(cfg.Discovery.Catalogs) != 1 || len(cfg.Discovery.Files) != 1 {
		t.Errorf("documented config read as %+v", cfg)
	}
}

// rulesFile is the alerting rules file operators load.
var rulesFile = filepath.Join("..", "deploy", "prometheus", "a2abind-rules.yml")

// TestDocsPrometheusFiles: promtool (Debian's prometheus package, which the Prometheus
// test installs) accepts the documented scrape config and the alerting rules file.
func TestDocsPrometheusFiles(t *testing.T) {
	prometheusBinary(t) // installs the package, promtool included, when missing
	if _, err := exec.LookPath("promtool"); err != nil {
		t.Fatal("promtool is not on PATH: install Debian's prometheus package (sudo apt-get install -y prometheus), which provides it")
	}
	config := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := os.WriteFile(config, []byte(docBlocks(t)[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ what, path string }{{"config", config}, {"rules", rulesFile}} {
		out, err := exec.CommandContext(t.Context(), "promtool", "check", tc.what, tc.path).CombinedOutput()
		if err != nil {
			t.Errorf("promtool check %s %s: %v\n%s", tc.what, tc.path, err, out)
		}
	}
}

// TestRulesNameExportedMetrics: every a2abind_* and probe_* metric the alerting rules
// name is one the exporter exports (a misspelt name is an alert that never fires, and
// promtool cannot tell), and docs/exporter.md names every alert of the file.
func TestRulesNameExportedMetrics(t *testing.T) {
	rules, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct{ Alert, Expr string }
		}
	}
	if err := yaml.Unmarshal(rules, &file); err != nil {
		t.Fatalf("%s: %v", rulesFile, err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "exporter.md"))
	if err != nil {
		t.Fatal(err)
	}
	var source strings.Builder
	for _, name := range []string{"metrics.go", "exporter.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		source.Write(b)
	}
	metric := regexp.MustCompile(`\b(?:a2abind|probe)_[a-z_]+\b`)
	alerts := 0
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			alerts++
			if !strings.Contains(string(doc), "`"+r.Alert+"`") {
				t.Errorf("docs/exporter.md does not name the alert %s", r.Alert)
			}
			names := metric.FindAllString(r.Expr, -1)
			if len(names) == 0 && !strings.HasPrefix(r.Expr, "up{") { // up: the probe scrape itself failed
				t.Errorf("alert %s: no a2abind metric in %q", r.Alert, r.Expr)
			}
			for _, m := range names {
				if !strings.Contains(source.String(), `"`+m+`"`) {
					t.Errorf("alert %s names %s, which the exporter does not export", r.Alert, m)
				}
			}
		}
	}
	if alerts < 5 {
		t.Errorf("%d alerts in %s, want 5", alerts, rulesFile)
	}
}

// TestDocsIdleOutlastsScrapeInterval: the connections the docs promise a scrape reuses
// outlive every scrape interval the docs configure, and the docs name the idle timeout.
func TestDocsIdleOutlastsScrapeInterval(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "exporter.md"))
	if err != nil {
		t.Fatal(err)
	}
	intervals := regexp.MustCompile(`(?m)^\s*(?:scrape_)?interval: (\w+)`).FindAllSubmatch(doc, -1)
	if len(intervals) == 0 {
		t.Fatal("docs/exporter.md configures no scrape interval")
	}
	for _, m := range intervals {
		d, err := model.ParseDuration(string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if time.Duration(d) >= exporter.IdleTimeout {
			t.Errorf("scrape interval %s is not shorter than the idle timeout %s: every scrape opens new connections", m[1], exporter.IdleTimeout)
		}
	}
	if !strings.Contains(string(doc), "close after 2\nminutes unused") {
		t.Errorf("docs/exporter.md does not state the idle timeout %s", exporter.IdleTimeout)
	}
}
