package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// hostileMargin is how long after --timeout a command may return: scheduling on a
// loaded CI machine, never the peer's pace.
const hostileMargin = 3 * time.Second

// runBounded runs the CLI in-process and returns its exit code, output and how long it
// took; a command still running 30 s later fails the test.
func runBounded(t *testing.T, args ...string) (code int, stdout, stderr string, elapsed time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	start := time.Now()
	go func() { done <- run(ctx, args, strings.NewReader(""), &out, &errOut) }()
	select {
	case code = <-done:
	case <-ctx.Done():
		t.Fatalf("a2abind %s did not return", strings.Join(args, " "))
	}
	return code, out.String(), errOut.String(), time.Since(start)
}

// hostileCard writes a v1.0 card declaring one interface at each peer and returns its path.
func hostileCard(t *testing.T, decls ...lab.Decl) string {
	t.Helper()
	b, err := json.Marshal(lab.V1Card("hostile", decls...))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestCommandsAgainstHostilePeers: probe, send and lint against a peer that answers
// without end, trickles its answer, streams forever or (gRPC) never answers return
// within --timeout plus a margin, with a non-zero exit code and a message, and leave no
// goroutine behind.
func TestCommandsAgainstHostilePeers(t *testing.T) {
	peers := map[lab.Hostile]*lab.HostilePeer{}
	for _, k := range []lab.Hostile{lab.EndlessBody, lab.TrickleHeaders, lab.TrickleBody, lab.EndlessAfterEvent, lab.HangingGRPC} {
		p, err := lab.StartHostile(k)
		if err != nil {
			t.Fatalf("lab.StartHostile() error = %v", err)
		}
		t.Cleanup(func() { _ = p.Close() })
		peers[k] = p
	}
	trickled := hostileCard(t,
		lab.Decl{URL: peers[lab.TrickleBody].URL + "/a2a", Binding: lab.JSONRPC, Version: "1.0"},
		lab.Decl{URL: peers[lab.HangingGRPC].Addr, Binding: lab.GRPC, Version: "1.0"})
	hanging := hostileCard(t, lab.Decl{URL: peers[lab.HangingGRPC].Addr, Binding: lab.GRPC, Version: "1.0"})
	endlessStream := hostileCard(t, lab.Decl{URL: peers[lab.EndlessAfterEvent].URL + "/a2a", Binding: lab.JSONRPC, Version: "1.0"})

	const timeout = 500 * time.Millisecond
	// The endless card is cut by its size bound, not by time: a long --timeout keeps a
	// loaded machine (the race detector, other suites) from timing out before 1 MiB
	// arrives, so the case tests the bound it names.
	const endlessTimeout = 20 * time.Second
	tests := []struct {
		name     string
		args     []string
		want     int
		contains string        // in stdout or stderr, in any case
		timeout  time.Duration // --timeout when not the default 500ms
	}{
		{"lint an endless card", []string{"lint", peers[lab.EndlessBody].URL}, ExitUsage, "over the 1048576-byte limit", endlessTimeout},
		{"lint a trickled card", []string{"lint", peers[lab.TrickleBody].URL}, ExitUsage, "no complete answer within 500ms", 0},
		{"probe an endless card", []string{"probe", peers[lab.EndlessBody].URL}, ExitUsage, "over the 1048576-byte limit", endlessTimeout},
		{"probe a card with trickled headers", []string{"probe", peers[lab.TrickleHeaders].URL}, ExitUsage, "no complete answer within 500ms", 0},
		{"send to an endless card", []string{"send", peers[lab.EndlessBody].URL, "hi"}, ExitUsage, "over the 1048576-byte limit", endlessTimeout},
		{"send to a trickled card", []string{"send", peers[lab.TrickleBody].URL, "hi"}, ExitUsage, "no complete answer", 0},
		{"probe trickling and hanging interfaces", []string{"probe", trickled, "-o", "json"}, ExitFailed, `"outcome": "timeout"`, 0},
		{"send to trickling and hanging interfaces", []string{"send", trickled, "hi", "-o", "json"}, ExitFailed, `"outcome": "ambiguous"`, 0},
		{"send to a gRPC server that never answers", []string{"send", hanging, "hi", "--grpc-plaintext"}, ExitFailed, "deadline", 0},
		{"send --stream to a stream that never ends", []string{"send", endlessStream, "hi", "--stream"}, ExitFailed, "after 1 events", 0},
	}
	before := goleak.IgnoreCurrent()
	t.Run("commands", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				timeout := cmp.Or(tc.timeout, timeout)
				args := append(tc.args, "--timeout", timeout.String())
				code, stdout, stderr, elapsed := runBounded(t, args...)
				if code != tc.want {
					t.Errorf("a2abind %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, tc.want, stdout, stderr)
				}
				if !strings.Contains(strings.ToLower(stdout+stderr), strings.ToLower(tc.contains)) {
					t.Errorf("a2abind %s: output lacks %q\nstdout: %s\nstderr: %s", strings.Join(args, " "), tc.contains, stdout, stderr)
				}
				if elapsed > timeout+hostileMargin {
					t.Errorf("a2abind %s returned after %s, want at most %s", strings.Join(args, " "), elapsed, timeout+hostileMargin)
				}
			})
		}
	})
	// The commands ran in parallel; together they left nothing.
	goleak.VerifyNone(t, before)
}

// TestCommandsLeaveNothing: after lint, probe, send and send --stream against live agents
// (which keep their connections open), no goroutine of the command is left.
func TestCommandsLeaveNothing(t *testing.T) {
	healthy := labtest.Start(t, lab.Healthy()...)
	seed := labtest.Start(t, lab.Seed()...)
	for _, args := range [][]string{
		{"lint", healthy.BaseURL},
		{"probe", healthy.BaseURL},
		{"probe", seed.BaseURL},
		{"send", seed.BaseURL, "hi"},
		{"send", healthy.BaseURL, "hi", "--stream", "--binding", "GRPC", "--grpc-plaintext"},
		{"send", healthy.BaseURL, "hi", "--stream", "--binding", "HTTP+JSON"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			code, stdout, stderr, _ := runBounded(t, append(args, "--timeout", "10s")...)
			want := ExitOK
			if args[0] == "probe" && args[1] == seed.BaseURL {
				want = ExitFailed // the seed's card is wrong; the probe says so
			}
			if code != want {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, want, stdout, stderr)
			}
			goleak.VerifyNone(t, before)
		})
	}
}
