package card

import (
	"context"
	"strings"
	"testing"
)

// TestLoadHintsASchemeThatFits: a host:port that is no file gets a URL to try, http://
// on loopback (agents under test listen without TLS), https:// elsewhere.
func TestLoadHintsASchemeThatFits(t *testing.T) {
	t.Chdir(t.TempDir())
	for target, want := range map[string]string{
		"127.0.0.1:9":       "http://127.0.0.1:9",
		"localhost:8080":    "http://localhost:8080",
		"agent.example.com": "https://agent.example.com",
		"10.1.2.3:443":      "https://10.1.2.3:443",
	} {
		_, err := Load(context.Background(), target)
		if err == nil || !strings.Contains(err.Error(), "give its URL: "+want+")") {
			t.Errorf("Load(%q) = %v, want a hint naming %s", target, err, want)
		}
	}
}
