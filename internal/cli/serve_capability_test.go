package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
)

// capabilityCard writes a v1.0 card declaring JSON-RPC 1.0 at httpAddr with the given
// top-level members set, and returns its path.
func capabilityCard(t *testing.T, httpAddr string, members map[string]any) string {
	t.Helper()
	doc := lab.V1Card("echo", lab.Decl{URL: "http://" + httpAddr + "/a2a/jsonrpc", Binding: lab.JSONRPC, Version: card.V1})
	for k, v := range members {
		doc[k] = v
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestServeCmd_RefusesCapabilityLies: serve --card refuses, exit 1, a card claiming a
// capability serve does not provide, naming the member and the flag that serves it.
func TestServeCmd_RefusesCapabilityLies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		members map[string]any
		flags   []string
		want    []string
	}{
		{"push without --push", map[string]any{"capabilities": map[string]any{"streaming": true, "pushNotifications": true}}, nil,
			[]string{"card refused", "capabilities.pushNotifications declares the capability pushNotifications", "serve --push", "set capabilities.pushNotifications to false"}},
		{"extended card without --extended-card", map[string]any{"capabilities": map[string]any{"extendedAgentCard": true}}, []string{"--push"},
			[]string{"card refused", "capabilities.extendedAgentCard declares the capability extendedAgentCard", "serve --extended-card"}},
		{"v0.3 extended card without --extended-card", map[string]any{"capabilities": map[string]any{}, "supportsAuthenticatedExtendedCard": true}, nil,
			[]string{"card refused", "supportsAuthenticatedExtendedCard declares the capability extendedAgentCard"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			httpAddr, err := lab.ClosedAddr()
			if err != nil {
				t.Fatal(err)
			}
			file := capabilityCard(t, httpAddr, tt.members)
			code, _, stderr := probeCLI(t, "", append([]string{"serve", "--http", httpAddr, "--card", file}, tt.flags...)...)
			if code != ExitFailed {
				t.Fatalf("serve exit = %d, want %d; stderr:\n%s", code, ExitFailed, stderr)
			}
			for _, frag := range tt.want {
				if !strings.Contains(stderr, frag) {
					t.Errorf("serve stderr lacks %q:\n%s", frag, stderr)
				}
			}
		})
	}
}

// TestServeCmd_ServesEveryClaimedCapability: with --push and --extended-card a card
// claiming every capability is published, and probe finds each one served and raises
// no capability finding.
func TestServeCmd_ServesEveryClaimedCapability(t *testing.T) {
	t.Parallel()
	httpAddr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	file := capabilityCard(t, httpAddr, map[string]any{"capabilities": map[string]any{"streaming": true, "pushNotifications": true, "extendedAgentCard": true}})
	cardURL, _, stop := serveInBackground(t, "--http", httpAddr, "--card", file, "--push", "--extended-card")
	c, err := card.Load(t.Context(), cardURL)
	if err != nil {
		t.Fatal(err)
	}
	ch := probe.Check(t.Context(), c)
	if len(ch.Capabilities) != len(probe.AllCapabilities()) {
		t.Fatalf("%d capability results, want one per capability (%d)", len(ch.Capabilities), len(probe.AllCapabilities()))
	}
	for _, cr := range ch.Capabilities {
		if !cr.Declared() || cr.Verdict != probe.CapabilityServed {
			t.Errorf("%s: declared %v, %s; want declared and served (%+v)", cr.Name, cr.Declared(), cr.Verdict, cr.Calls)
		}
	}
	for _, f := range ch.Report(c).Findings {
		if f.Severity == card.SeverityError {
			t.Errorf("finding %s: %s", f.Code, f.Message)
		}
	}
	if got := stop(); got != ExitOK {
		t.Errorf("serve exit after cancel = %d, want %d", got, ExitOK)
	}
}

// TestServeCmd_PushPrivateNeedsPush: --push-private alone is a usage error.
func TestServeCmd_PushPrivateNeedsPush(t *testing.T) {
	t.Parallel()
	code, _, stderr := probeCLI(t, "", "serve", "--http", "127.0.0.1:0", "--push-private")
	if code != ExitUsage || !strings.Contains(stderr, "--push-private goes with --push") {
		t.Errorf("serve --push-private = %d, %q; want %d naming --push", code, stderr, ExitUsage)
	}
}
