package exporter_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestAlertRulesFire runs promtool's rule unit tests (Debian's prometheus package,
// installed as for the Prometheus test) on the shipped rules: the card-changed,
// signature-invalid and signing-key alerts fire on the series the exporter exports,
// and stay silent when nothing changed.
func TestAlertRulesFire(t *testing.T) {
	bin := debianBinary(t, "prometheus", "promtool")
	tests := filepath.Join("..", "deploy", "prometheus", "a2abind-rules.test.yml")
	out, err := exec.CommandContext(t.Context(), bin, "test", "rules", tests).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules %s: %v\n%s", tests, err, out)
	}
}
