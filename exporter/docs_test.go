package exporter_test

import (
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/lab"
)

// docBlocks returns the YAML blocks of docs/exporter.md in order: the exporter config,
// the scrape config, the alerting rules, the prometheus-operator Probe.
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
	if len(blocks) != 4 {
		t.Fatalf("docs/exporter.md has %d YAML blocks, want 4 (config, scrape config, rules, Probe)", len(blocks))
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
	doc := strings.NewReplacer("/run/secrets/a2a-token", token, "/etc/a2abind/ca.pem", ca,
		"/etc/a2abind/agents-jwks.json", jwks).Replace(docBlocks(t)[0])
	cfg, err := exporter.ParseConfig([]byte(doc))
	if err != nil {
		t.Fatalf("the documented config: %v", err)
	}
	if len(cfg.AllowedTargets) != 2 || len(cfg.Modules) != 2 {
		t.Errorf("documented config read as %+v", cfg)
	}
}

// TestDocsPrometheusFiles: promtool (Debian's prometheus package, which the Prometheus
// test installs) accepts the documented scrape config and alerting rules.
func TestDocsPrometheusFiles(t *testing.T) {
	prometheusBinary(t) // installs the package, promtool included, when missing
	blocks := docBlocks(t)
	dir := t.TempDir()
	for _, tc := range []struct{ what, file, block string }{
		{"config", "prometheus.yml", blocks[1]},
		{"rules", "rules.yml", blocks[2]},
	} {
		path := filepath.Join(dir, tc.file)
		if err := os.WriteFile(path, []byte(tc.block), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), "promtool", "check", tc.what, path).CombinedOutput()
		if err != nil {
			t.Errorf("promtool check %s on the documented %s: %v\n%s", tc.what, tc.file, err, out)
		}
	}
}
