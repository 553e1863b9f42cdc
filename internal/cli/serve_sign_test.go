package cli

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeCmd_SignKey: `serve --sign-key --jku` publishes a signed card and the JWKS at
// the jku's path; lint verifies the card with that JWKS and --require-signature passes.
func TestServeCmd_SignKey(t *testing.T) {
	t.Parallel()
	cardURL, _, stop := serveInBackground(t, "--http", "127.0.0.1:0", "--sign-key", keyPath("corpus-es256.private.jwk"),
		"--jku", "https://agent.example.com/keys/jwks.json")
	base := strings.TrimSuffix(cardURL, "/.well-known/agent-card.json")
	resp, err := http.Get(base + "/keys/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	served, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	jwks := filepath.Join(t.TempDir(), "served-jwks.json")
	if resp.StatusCode != http.StatusOK || os.WriteFile(jwks, served, 0o600) != nil {
		t.Fatalf("GET the JWKS: %d", resp.StatusCode)
	}
	code, out, stderr := probeCLI(t, "", "lint", cardURL, "--jwks", jwks, "--require-signature")
	if code != ExitOK || !strings.Contains(out, "signature-valid") {
		t.Errorf("lint of the served card: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = probeCLI(t, "", "probe", base, "--jwks", jwks, "--require-signature")
	if code != ExitOK || !strings.Contains(out, "signature-valid") {
		t.Errorf("probe of the signed agent: exit %d\n%s\n%s", code, out, stderr)
	}
	if got := stop(); got != ExitOK {
		t.Errorf("serve exit after cancel = %d, want %d", got, ExitOK)
	}
}

func TestServeCmd_SignUsageErrors(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"jku without key": {"--http", "127.0.0.1:0", "--jku", "https://a.example.com/jwks.json"},
		"missing key":     {"--http", "127.0.0.1:0", "--sign-key", "/nonexistent.jwk"},
		"http jku":        {"--http", "127.0.0.1:0", "--sign-key", keyPath("corpus-es256.private.jwk"), "--jku", "http://a.example.com/jwks.json"},
	} {
		if code, _, stderr := probeCLI(t, "", append([]string{"serve"}, args...)...); code != ExitUsage || stderr == "" {
			t.Errorf("%s: exit %d, stderr %q; want %d", name, code, stderr, ExitUsage)
		}
	}
}
