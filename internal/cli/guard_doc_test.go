package cli

import (
	"bufio"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/server"
)

// TestGuardDocSidecarManifest keeps docs/guard.md's Kubernetes sidecar in step with the
// command: the guard container's args parse as `a2abind guard` flags (each --probe-via a
// valid mapping), and its readiness and liveness probes name the guard's own paths.
func TestGuardDocSidecarManifest(t *testing.T) {
	f, err := os.Open("../../docs/guard.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var args, paths []string
	inGuard, inArgs := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "- name: "):
			inGuard, inArgs = line == "- name: a2abind-guard", false
		case inGuard && line == "args:":
			inArgs = true
		case inGuard && inArgs && strings.HasPrefix(line, "- "):
			arg, _, _ := strings.Cut(strings.TrimPrefix(line, "- "), " #")
			args = append(args, strings.TrimSpace(arg))
		case inGuard && strings.HasPrefix(line, "httpGet:"):
			inArgs = false
			if _, p, ok := strings.Cut(line, "path: "); ok {
				paths = append(paths, strings.TrimSpace(strings.SplitN(p, ",", 2)[0]))
			}
		case inGuard && line != "" && !strings.HasPrefix(line, "- "):
			inArgs = false
		}
	}
	if len(args) < 3 || args[0] != "guard" {
		t.Fatalf("guard container args = %q, want `guard` and its flags", args)
	}
	cmd, _, err := newRootCmd(strings.NewReader(""), io.Discard, io.Discard).Find(args)
	if err != nil || cmd.Name() != "guard" {
		t.Fatalf("docs/guard.md sidecar args %q: no guard command (%v)", args, err)
	}
	if err := cmd.ParseFlags(args[1:]); err != nil {
		t.Fatalf("docs/guard.md sidecar args %q: %v", args, err)
	}
	via, err := cmd.Flags().GetStringArray("probe-via")
	if err != nil || len(via) == 0 {
		t.Fatalf("the sidecar maps no public address: %v", err)
	}
	for _, v := range via {
		if _, err := guard.ParseMapping(v); err != nil {
			t.Errorf("docs/guard.md --probe-via %q: %v", v, err)
		}
	}
	want := map[string]bool{server.PathReadyz: false, server.PathHealthz: false}
	for _, p := range paths {
		if _, ok := want[p]; ok {
			want[p] = true
		}
	}
	for p, seen := range want {
		if !seen {
			t.Errorf("the sidecar has no probe on %s (probe paths %q)", p, paths)
		}
	}
}
