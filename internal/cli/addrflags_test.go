package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
)

// metadataCard writes a card file whose only interfaces are a metadata address and
// 0.0.0.0 on a closed port.
func metadataCard(t *testing.T) string {
	t.Helper()
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(closed, ":")
	b, err := json.Marshal(lab.V1Card("meta",
		lab.Decl{URL: "http://169.254.169.254/latest/meta-data/", Binding: lab.JSONRPC, Version: card.V1},
		lab.Decl{URL: "http://0.0.0.0:" + port + "/a2a", Binding: lab.JSONRPC, Version: card.V1}))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "meta.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProbeBlocksRefusedAddresses(t *testing.T) {
	t.Parallel()
	path := metadataCard(t)
	code, stdout, stderr := probeCLI(t, "", "probe", path, "-o", "json", "--timeout", "10s")
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d; %s", code, ExitFailed, stderr)
	}
	var out probeOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	for _, i := range out.Interfaces {
		if i.Outcome != "blocked" || !strings.Contains(i.Detail, "--allow-address") {
			t.Errorf("%s: %s %q, want blocked, naming --allow-address", i.URL, i.Outcome, i.Detail)
		}
	}
	// Allowed, 0.0.0.0 is dialled (and refused: the port is closed).
	code, stdout, _ = probeCLI(t, "", "probe", path, "-o", "json", "--timeout", "10s", "--allow-address", "0.0.0.0")
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != ExitFailed {
		t.Fatalf("exit %d, %v", code, err)
	}
	if got := out.Interfaces[1].Outcome; got != "refused" {
		t.Errorf("0.0.0.0 allowed: outcome %s, want refused", got)
	}
}

func TestSendWithOnlyRefusedAddresses(t *testing.T) {
	t.Parallel()
	code, _, stderr := sendCLI(t, metadataCard(t), "ping", "--timeout", "10s")
	if code != ExitUsage || !strings.Contains(stderr, "blocked") || !strings.Contains(stderr, "169.254.169.254") {
		t.Errorf("exit %d, stderr %q; want %d naming the blocked addresses", code, stderr, ExitUsage)
	}
}

func TestAddressFlagsUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"probe", "x.json", "--allow-address", "http://h/"},
		{"send", "x.json", "hi", "--allow-address", "h:1"},
		{"probe", "x.json", "--max-interfaces", "-1"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != ExitUsage || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want %d with a message", args, code, stderr, ExitUsage)
		}
	}
}
