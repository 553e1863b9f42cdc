package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/cli"
	"github.com/a2abind/a2abind/wire"
)

// runCLIEnv makes the test binary act as the a2abind command (see TestMain), so that the
// CLI tests run `a2abind serve|probe|send` as real processes without a separate build.
const runCLIEnv = "A2ABIND_INTEROP_RUN_CLI"

// TestMain runs the tests and then stops the shared JS servers; with runCLIEnv set it is
// the a2abind command instead.
func TestMain(m *testing.M) {
	if os.Getenv(runCLIEnv) == "1" {
		os.Exit(cli.Execute())
	}
	// The a2abind processes remember interfaces in a cache directory of the run's own,
	// never in the user's. The go command (building a2a-go's cmd/a2a) keeps its build
	// cache where it was.
	if os.Getenv("GOCACHE") == "" {
		if userCache, err := os.UserCacheDir(); err == nil {
			os.Setenv("GOCACHE", filepath.Join(userCache, "go-build"))
		}
	}
	cacheDir, err := os.MkdirTemp("", "a2abind-interop-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cacheDir)
	code := m.Run()
	stopJSServers()
	os.RemoveAll(cacheDir)
	os.Exit(leakCheck(code))
}

// a2abind returns the command `a2abind args...` (this test binary in CLI mode), in its
// own process group, killed with the group when ctx ends.
func a2abind(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runCLIEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 3 * time.Second
	return cmd
}

// runA2abind runs a one-shot a2abind command and returns its stdout and exit code.
func runA2abind(t *testing.T, args ...string) ([]byte, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := a2abind(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("a2abind %s: %v\nstderr:\n%s", strings.Join(args, " "), err, stderr.String())
	}
	code := 0
	if ee != nil {
		code = ee.ExitCode()
	}
	if stdout.Len() == 0 {
		t.Fatalf("a2abind %s printed nothing (exit %d)\nstderr:\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes(), code
}

// probeOutput is the `a2abind probe -o json` contract (docs/taxonomy.md and the README).
type probeOutput struct {
	Target     string `json:"target"`
	OK         bool   `json:"ok"`
	Interfaces []struct {
		URL           string       `json:"url"`
		Binding       string       `json:"binding"`
		Outcome       wire.Outcome `json:"outcome"`
		ActualBinding string       `json:"actualBinding"`
	} `json:"interfaces"`
	Findings []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
	} `json:"findings"`
	Clients []struct {
		Profile string `json:"profile"`
		OK      bool   `json:"ok"`
	} `json:"clients"`
}

// sendOutput is the `a2abind send -o json` contract (docs/taxonomy.md and the README).
type sendOutput struct {
	OK       bool `json:"ok"`
	Attempts []struct {
		URL     string       `json:"url"`
		Binding string       `json:"binding"`
		Outcome wire.Outcome `json:"outcome"`
	} `json:"attempts"`
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// TestCLIAgainstA2AJS runs the a2abind command itself against a2a-js 1.3.0 agents:
// `probe -o json` on the honest agent (all served, exit 0) and on the lying one (the
// seed's findings, exit 1), and `send -o json` through the lying card (one fallback).
func TestCLIAgainstA2AJS(t *testing.T) {
	t.Parallel()
	honest := startJSServer(t, modeHonest)
	lying := startJSServer(t, modeGRPCNoService)

	t.Run("probe-honest", func(t *testing.T) {
		t.Parallel()
		out, code := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", honest.BaseURL)
		var p probeOutput
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatalf("probe -o json: %v\n%s", err, out)
		}
		if code != 0 || !p.OK || len(p.Interfaces) != 3 {
			t.Fatalf("probe = exit %d, ok %v, %d interfaces; want exit 0, ok, 3 interfaces\n%s", code, p.OK, len(p.Interfaces), out)
		}
		for _, i := range p.Interfaces {
			if i.Outcome != wire.Served {
				t.Errorf("%s at %s: %s, want served", i.Binding, i.URL, i.Outcome)
			}
		}
		for _, f := range p.Findings {
			if f.Severity == string(card.SeverityError) {
				t.Errorf("error finding %s on the honest agent", f.Code)
			}
		}
	})

	t.Run("probe-lying", func(t *testing.T) {
		t.Parallel()
		out, code := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", lying.BaseURL)
		var p probeOutput
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatalf("probe -o json: %v\n%s", err, out)
		}
		if code != 1 || p.OK {
			t.Fatalf("probe = exit %d, ok %v; want exit 1, not ok\n%s", code, p.OK, out)
		}
		if len(p.Interfaces) == 0 || p.Interfaces[0].Outcome != wire.HandlerMissing {
			t.Errorf("first interface = %+v, want the gRPC entry handler_missing", p.Interfaces)
		}
		codes := map[string]bool{}
		for _, f := range p.Findings {
			if f.Severity == string(card.SeverityError) {
				codes[f.Code] = true
			}
		}
		if !codes[card.CodePreferredNotServed] || !codes[card.CodeInterfaceNotServed] {
			t.Errorf("error findings = %v, want %s and %s", codes, card.CodePreferredNotServed, card.CodeInterfaceNotServed)
		}
		clients := map[string]bool{}
		for _, c := range p.Clients {
			clients[c.Profile] = c.OK
		}
		if ok, seen := clients["a2a-js-default"]; !seen || !ok {
			t.Errorf("clients: a2a-js-default ok = %v (listed %v), want ok", ok, seen)
		}
		if ok, seen := clients["a2a-js-grpc"]; !seen || ok {
			t.Errorf("clients: a2a-js-grpc ok = %v (listed %v), want failing", ok, seen)
		}
	})

	t.Run("send-lying", func(t *testing.T) {
		t.Parallel()
		out, code := runA2abind(t, "send", "-o", "json", "--timeout", "20s", lying.BaseURL, "hello from the CLI")
		var s sendOutput
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("send -o json: %v\n%s", err, out)
		}
		if code != 0 || !s.OK || len(s.Attempts) != 2 {
			t.Fatalf("send = exit %d, ok %v, %d attempts; want exit 0, ok after one fallback\n%s", code, s.OK, len(s.Attempts), out)
		}
		if a := s.Attempts[0]; a.Binding != string(a2a.TransportProtocolGRPC) || a.URL != lying.BareGRPC || a.Outcome != wire.HandlerMissing {
			t.Errorf("attempt 1 = %+v, want GRPC at %s handler_missing", a, lying.BareGRPC)
		}
		if a := s.Attempts[1]; a.Binding != string(a2a.TransportProtocolJSONRPC) || a.URL != lying.JSONRPC || a.Outcome != wire.Served {
			t.Errorf("attempt 2 = %+v, want JSONRPC at %s served", a, lying.JSONRPC)
		}
		if !bytes.Contains(s.Result, []byte("echo: hello from the CLI")) {
			t.Errorf("result = %s, want the agent's echo", s.Result)
		}
	})
}

// TestCLIServeWithJSClient runs `a2abind serve` as a process (JSON-RPC and HTTP+JSON on
// the HTTP port, gRPC on its own), drives it with the a2a-js client on each binding, and
// stops it with SIGTERM, which must end in a clean exit.
func TestCLIServeWithJSClient(t *testing.T) {
	t.Parallel()
	needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := a2abind(ctx, "serve", "-o", "json", "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	logs := &lockedBuffer{}
	ready := make(chan string, 1)
	go func() {
		// serve logs JSON lines on stderr; "ready: card published" carries the card URL.
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			_, _ = logs.Write(append(sc.Bytes(), '\n'))
			var rec struct{ Msg, Card string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "ready: card published" {
				select {
				case ready <- rec.Card:
				default:
				}
			}
		}
		exited <- cmd.Wait()
	}()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = killGroup(cmd)
			<-exited
		}
	})

	var cardURL string
	select {
	case cardURL = <-ready:
	case err := <-exited:
		stopped = true
		t.Fatalf("a2abind serve exited before publishing its card: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("a2abind serve published no card within 30s\n%s", logs)
	}
	lctx, lcancel := context.WithTimeout(ctx, 10*time.Second)
	defer lcancel()
	c, err := card.Load(lctx, cardURL)
	if err != nil {
		t.Fatalf("card.Load(%s) = %v", cardURL, err)
	}
	// serve's echo completes at once, so there is no running task to cancel: cancel is
	// exercised as the error case of canceling a completed task.
	ops := []string{"send", "get", "stream", "cancel-completed", "get-unknown"}
	var calls []jsCall
	for _, call := range forcedCalls(cardURL) {
		call.Ops = ops
		calls = append(calls, call)
	}
	runs := runJSClients(t, calls...)
	for n, jb := range jsBindings {
		t.Run(string(jb.binding), func(t *testing.T) {
			checkOpsOnly(t, runs[n], jb.binding, declaredURL(t, c, jb.binding), ops)
		})
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Errorf("a2abind serve after SIGTERM: %v, want a clean exit\n%s", err, logs)
		}
	case <-time.After(20 * time.Second):
		t.Errorf("a2abind serve still running 20s after SIGTERM\n%s", logs)
	}
}
