package cli

import (
	"strings"
	"testing"
)

// TestServeCmd_Tenant: `serve --tenant acme` publishes a card whose every interface
// declares the tenant; probe sends it and finds each interface served, and send (the
// delegate client) gets its message echoed through the tenanted agent.
func TestServeCmd_Tenant(t *testing.T) {
	t.Parallel()
	cardURL, _, stop := serveInBackground(t, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--tenant", "acme")
	base := strings.TrimSuffix(cardURL, "/.well-known/agent-card.json")

	probeServed(t, base, 3)

	code, stdout, stderr := probeCLI(t, "", "send", base, "hello tenant", "-o", "json")
	if code != ExitOK || !strings.Contains(stdout, `"ok": true`) || !strings.Contains(stdout, "hello tenant") {
		t.Errorf("send exit = %d, want %d with the echo; stdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	if got := stop(); got != ExitOK {
		t.Errorf("serve exit after cancel = %d, want %d", got, ExitOK)
	}
}

func TestServeCmd_TenantUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"tenant with v0.3", []string{"--http", "127.0.0.1:0", "--tenant", "acme", "--v03"}, "v0.3"},
		{"tenant with white space", []string{"--http", "127.0.0.1:0", "--tenant", "a b"}, "white space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := probeCLI(t, "", append([]string{"serve"}, tt.args...)...)
			if code != ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("serve exit = %d, stderr %q; want %d containing %q", code, stderr, ExitUsage, tt.want)
			}
		})
	}
}
