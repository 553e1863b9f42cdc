package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// buildA2AGoCLI builds a2a-go v2.3.1's own `a2a` command (cmd/a2a of the pinned module,
// from the module cache, so it works offline) into a temporary directory.
func buildA2AGoCLI(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build a2a-go's cmd/a2a: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "a2a")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/a2aproject/a2a-go/v2/cmd/a2a").CombinedOutput()
	if err != nil {
		t.Fatalf("go build github.com/a2aproject/a2a-go/v2/cmd/a2a: %v\n%s", err, out)
	}
	return bin
}

// startA2AGoEcho runs `a2a serve --echo [extra...]` on a free loopback port and returns its base URL;
// the process (group) is killed when the test ends.
func startA2AGoEcho(t *testing.T, bin string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--echo", "--host", "127.0.0.1", "--port", "0"}, extra...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 3 * time.Second
	cmd.Env = os.Environ()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	ready := make(chan string, 1)
	exited := make(chan error, 1)
	listening := regexp.MustCompile(`(?:gRPC l|L)istening on (127\.0\.0\.1:\d+)`)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			_, _ = logs.Write(append(sc.Bytes(), '\n'))
			if m := listening.FindSubmatch(sc.Bytes()); m != nil {
				select {
				case ready <- string(m[1]):
				default:
				}
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cancel()
		<-exited
	})
	select {
	case addr := <-ready:
		return "http://" + addr
	case err := <-exited:
		t.Fatalf("a2a serve --echo exited: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("a2a serve --echo did not listen within 30s\n%s", logs)
	}
	return ""
}

// TestA2AGoCLIEchoAgent is the first thing a new user tries: a2a-go v2.3.1's reference
// server `a2a serve --echo`, whose card has "defaultInputModes", "defaultOutputModes"
// and "skills" null. probe passes (exit 0, the nulls are warnings), lint passes, and
// send gets the echo.
func TestA2AGoCLIEchoAgent(t *testing.T) {
	t.Parallel()
	base := startA2AGoEcho(t, buildA2AGoCLI(t))

	out, code := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", base)
	var p probeOutput
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("probe -o json: %v\n%s", err, out)
	}
	if code != 0 || !p.OK || len(p.Interfaces) != 1 || p.Interfaces[0].Outcome != wire.Served {
		t.Fatalf("probe = exit %d, ok %v, interfaces %+v; want exit 0, ok, one served interface\n%s", code, p.OK, p.Interfaces, out)
	}
	nulls := 0
	for _, f := range p.Findings {
		if f.Severity == string(card.SeverityError) {
			t.Errorf("error finding %s", f.Code)
		}
		if f.Code == "field-null" {
			nulls++
		}
	}
	if nulls != 3 {
		t.Errorf("%d field-null findings, want 3 (defaultInputModes, defaultOutputModes, skills)", nulls)
	}

	if out, code := runA2abind(t, "lint", base); code != 0 || !strings.Contains(string(out), "ok: 3 warnings") {
		t.Errorf("lint = exit %d, want 0 and 3 warnings\n%s", code, out)
	}

	out, code = runA2abind(t, "send", "-o", "json", "--no-cache", "--timeout", "20s", base, "hello a2a-go")
	var s sendOutput
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("send -o json: %v\n%s", err, out)
	}
	if code != 0 || !s.OK || !strings.Contains(string(s.Result), "hello a2a-go") {
		t.Errorf("send = exit %d, ok %v, result %s; want exit 0 and the echo", code, s.OK, s.Result)
	}
}

// TestA2AGoCLIVersionDrift: `a2a serve --echo --protocol 0.3` serves HTTP+JSON 0.3
// under a card that stamps protocolVersion 1.0 (a2a-go v2.3.1's CLI drift). probe says
// version_mismatch, really there HTTP+JSON 0.3, and gives the evidence once: the 1.0
// and 0.3 lookups are the same request (GET /tasks/{id}).
func TestA2AGoCLIVersionDrift(t *testing.T) {
	t.Parallel()
	base := startA2AGoEcho(t, buildA2AGoCLI(t), "--protocol", "0.3")
	out, code := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", base)
	var p struct {
		Interfaces []struct {
			Outcome       wire.Outcome `json:"outcome"`
			ActualBinding string       `json:"actualBinding"`
			Detail        string       `json:"detail"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("probe -o json: %v\n%s", err, out)
	}
	if code != 1 || len(p.Interfaces) != 1 || p.Interfaces[0].Outcome != wire.VersionMismatch {
		t.Fatalf("probe = exit %d, %+v; want exit 1 and one version_mismatch interface", code, p.Interfaces)
	}
	detail := p.Interfaces[0].Detail
	if n := strings.Count(detail, "HTTP+JSON GET "); n != 1 {
		t.Errorf("the evidence names %d requests, want the one request once:\n%s", n, detail)
	}
}
