package interop

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The versions interop/js/package.json pins; the tests refuse anything else.
const wantSDKVersion = "1.3.0"

// Bounds on the Node processes.
const (
	serverStartTimeout = 60 * time.Second // node start, SDK load, listen, first line: a hang bound, wide for a loaded machine where many tests start servers at once
	serverLifetime     = 10 * time.Minute // a JS server never outlives this (test.sh's go test -timeout)
	clientTimeout      = 45 * time.Second // one client.mjs run, all its operations
	clientOpTimeout    = 8 * time.Second  // each operation inside client.mjs
)

// installHelp says exactly what to install and run when Node or the npm packages are missing.
const installHelp = `the interop tests need Node.js 20 or later with npm, and the npm packages of interop/js/package.json.
  1. Install Node.js 20+ and npm (Debian 12's own nodejs package is 18, too old: use a Node.js 20 package or build).
  2. From the repository root run ./test.sh, which installs the packages into .cache/node/node_modules,
     or only that step: interop/js/install.sh
     (by hand: mkdir -p .cache/node && cp interop/js/package.json interop/js/package-lock.json .cache/node/ && npm ci --prefix .cache/node)
  Or set A2ABIND_NODE_MODULES to a node_modules directory that has @a2a-js/sdk@` + wantSDKVersion

// nodeEnv is where node and the installed packages are.
type nodeEnv struct {
	node    string // path of the node binary
	modules string // absolute path of the node_modules directory
	jsDir   string // absolute path of interop/js
}

var (
	envOnce   sync.Once
	envResult nodeEnv
	envErr    error
)

// needNode returns the Node environment, or fails the test saying what to install.
func needNode(t testing.TB) nodeEnv {
	t.Helper()
	envOnce.Do(func() { envResult, envErr = findNode() })
	if envErr != nil {
		t.Fatal(nodeFailure(envErr))
	}
	return envResult
}

// nodeFailure is the message a test fails with when Node or the packages are missing.
func nodeFailure(err error) string {
	return fmt.Sprintf("interop: %v\n%s", err, installHelp)
}

func findNode() (nodeEnv, error) {
	var env nodeEnv
	node, err := exec.LookPath("node")
	if err != nil {
		return env, errors.New("node is not on PATH")
	}
	env.node = node
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return env, fmt.Errorf("node --version failed: %w", err)
	}
	var major int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(out)), "v%d.", &major); err != nil || major < 20 {
		return env, fmt.Errorf("node %s is too old (want 20 or later)", strings.TrimSpace(string(out)))
	}
	if env.jsDir, err = filepath.Abs("js"); err != nil {
		return env, err
	}
	mods := os.Getenv("A2ABIND_NODE_MODULES")
	where := "A2ABIND_NODE_MODULES=" + mods
	if mods == "" {
		mods = filepath.Join(".cache", "node", "node_modules")
		where = ".cache/node/node_modules"
		// The install script stamps the cache with a hash of the package files; a
		// different hash means package.json or the lockfile changed since.
		if stamp, err := os.ReadFile(filepath.Join("..", ".cache", "node", ".installed")); err == nil {
			h := sha256.New()
			for _, f := range []string{"package.json", "package-lock.json"} {
				b, err := os.ReadFile(filepath.Join("js", f))
				if err != nil {
					return env, err
				}
				h.Write(b)
			}
			if strings.TrimSpace(string(stamp)) != hex.EncodeToString(h.Sum(nil)) {
				return env, errors.New(".cache/node was installed from another interop/js/package.json or lockfile (the install is stale)")
			}
		}
	}
	if !filepath.IsAbs(mods) {
		mods = filepath.Join("..", mods) // relative to the repository root, not to interop/
	}
	if env.modules, err = filepath.Abs(mods); err != nil {
		return env, err
	}
	raw, err := os.ReadFile(filepath.Join(env.modules, "@a2a-js", "sdk", "package.json"))
	if err != nil {
		return env, fmt.Errorf("@a2a-js/sdk is not installed in %s (%s)", where, env.modules)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil || pkg.Version != wantSDKVersion {
		return env, fmt.Errorf("%s has @a2a-js/sdk %q, want %s (the install is stale)", where, pkg.Version, wantSDKVersion)
	}
	for _, dep := range []string{"express", "@grpc/grpc-js", "@bufbuild/protobuf"} {
		if _, err := os.Stat(filepath.Join(env.modules, dep, "package.json")); err != nil {
			return env, fmt.Errorf("%s lacks %s", where, dep)
		}
	}
	return env, nil
}

// command builds a node command for a script in interop/js, in its own process group so
// that cleanup can kill it with everything it started.
func (e nodeEnv) command(ctx context.Context, script string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, e.node, append([]string{filepath.Join(e.jsDir, script)}, args...)...)
	cmd.Dir = e.jsDir
	cmd.Env = append(os.Environ(),
		"A2ABIND_NODE_MODULES="+e.modules,
		fmt.Sprintf("A2ABIND_INTEROP_MAX_LIFETIME_MS=%d", serverLifetime.Milliseconds()),
		"NODE_NO_WARNINGS=1",
	)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 3 * time.Second
	return cmd
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return cmd.Process.Kill()
	}
	return nil
}

// lockedBuffer collects a process's stderr for failure messages.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 64<<10 {
		return len(p), nil // bounded: the start of stderr is what explains a failure
	}
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Card modes of server.mjs.
const (
	modeHonest        = "honest"
	modeGRPCAtHTTP    = "grpc-at-http"
	modeGRPCNoService = "grpc-no-service"
	modeSeed          = "seed"
	// modeV03Server is not a card mode of server.mjs but server03.mjs: an
	// @a2a-js/sdk 0.3.14 agent with its own v0.3 card.
	modeV03Server = "v03-server"
)

// wantSDK03Version is the @a2a-js/sdk version server03.mjs and client03.mjs run.
const wantSDK03Version = "0.3.14"

// jsServer is a running server.mjs: the addresses of its announcement line.
type jsServer struct {
	Mode       string          `json:"mode"`
	SDKVersion string          `json:"sdkVersion"`
	BaseURL    string          `json:"baseUrl"`
	CardURL    string          `json:"cardUrl"`
	JSONRPC    string          `json:"jsonrpc"`
	REST       string          `json:"rest"`
	GRPC       string          `json:"grpc"`
	BareGRPC   string          `json:"bareGrpc"`
	Card       json.RawMessage `json:"card"`

	stderr *lockedBuffer
}

// The JS servers are shared: each card mode is started once, by the first test that
// needs it, and stopped by TestMain when every test is done. Tests only read from them
// (probes are side-effect-free; tasks they create are their own).
var shared struct {
	mu      sync.Mutex
	servers map[string]*sharedServer
}

type sharedServer struct {
	once sync.Once
	s    *jsServer
	stop func()
	err  error
}

// startJSServer returns the running server.mjs of a card mode, starting it if no test
// has yet.
func startJSServer(t testing.TB, mode string) *jsServer {
	t.Helper()
	env := needNode(t)
	shared.mu.Lock()
	if shared.servers == nil {
		shared.servers = map[string]*sharedServer{}
	}
	e := shared.servers[mode]
	if e == nil {
		e = &sharedServer{}
		shared.servers[mode] = e
	}
	shared.mu.Unlock()
	e.once.Do(func() { e.s, e.stop, e.err = launchJSServer(env, mode) })
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e.s
}

// stopJSServers stops every shared server.
func stopJSServers() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	for _, e := range shared.servers {
		if e.stop != nil {
			e.stop()
		}
	}
}

// launchJSServer starts server.mjs with a card mode and reads its address line; stop
// ends it (process group and all). On error nothing is left running.
func launchJSServer(env nodeEnv, mode string) (*jsServer, func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), serverLifetime)
	script, args, want := "server.mjs", []string{"--card", mode}, wantSDKVersion
	if mode == modeV03Server {
		script, args, want = "server03.mjs", nil, wantSDK03Version
	}
	cmd := env.command(ctx, script, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, nil, err
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("start server.mjs: %w", err)
	}
	lines := make(chan string, 1)
	go func() {
		// Read the announcement line, then drain stdout until the process exits.
		r := bufio.NewReaderSize(stdout, 64<<10)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = r.WriteTo(discard{})
	}()
	done := make(chan error, 1)
	waited := make(chan struct{})
	go func() {
		done <- cmd.Wait()
		close(waited)
	}()
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			_ = stdin.Close() // server.mjs exits when its stdin closes
			select {
			case <-waited:
			case <-time.After(3 * time.Second):
				_ = killGroup(cmd)
				<-waited
			}
			cancel()
		})
	}

	var line string
	select {
	case line = <-lines:
	case err := <-done:
		stop()
		return nil, nil, fmt.Errorf("server.mjs --card %s exited before announcing its addresses: %v\nstderr:\n%s", mode, err, stderr)
	case <-time.After(serverStartTimeout):
		stop()
		return nil, nil, fmt.Errorf("server.mjs --card %s: no address line within %v\nstderr:\n%s", mode, serverStartTimeout, stderr)
	}
	s := &jsServer{stderr: stderr}
	if err := json.Unmarshal([]byte(line), s); err != nil || s.BaseURL == "" {
		stop()
		return nil, nil, fmt.Errorf("server.mjs --card %s: bad address line %q (%v)\nstderr:\n%s", mode, line, err, stderr)
	}
	if s.SDKVersion != want {
		stop()
		return nil, nil, fmt.Errorf("%s runs @a2a-js/sdk %s, want %s", script, s.SDKVersion, want)
	}
	return s, stop, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Transport sets of client.mjs --transports.
const (
	transportsDefault = "default" // the SDK default factories: JSON-RPC and HTTP+JSON
	transportsGRPC    = "grpc"    // the default plus GrpcTransportFactory
)

// jsCall is how to run client.mjs.
type jsCall struct {
	Target     string   // base URL or card URL
	Transports string   // transportsDefault, transportsGRPC, or a comma list
	Prefer     []string // preferredTransports
	Ops        []string // operations; nil runs all of them
	// LegacyCompat enables the SDK's v0.3 compatibility layer (--legacy-compat true).
	LegacyCompat bool
}

// jsStep is one output line of client.mjs.
type jsStep struct {
	Run             int       `json:"run"`
	Op              string    `json:"op"`
	OK              bool      `json:"ok"`
	Transport       string    `json:"transport"`
	URL             string    `json:"url"`
	ProtocolVersion string    `json:"protocolVersion"`
	Result          *jsResult `json:"result"`
	Error           *jsError  `json:"error"`
}

type jsResult struct {
	Kind      string   `json:"kind"`
	ID        string   `json:"id"`
	ContextID string   `json:"contextId"`
	State     string   `json:"state"`
	Text      string   `json:"text"`
	Events    []string `json:"events"`
	Before    string   `json:"before"`
}

type jsError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    any    `json:"code"`
	Status  any    `json:"status"`
}

func (e *jsError) String() string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s (reason %s): %s", e.Name, e.Reason, e.Message)
}

// jsRun is the output of one client.mjs run, by op.
type jsRun struct {
	Create jsStep
	Ops    map[string]jsStep
	raw    string
}

// runJSClients runs client.mjs (the @a2a-js/sdk 1.3.0 client) once for several calls,
// in order (one Node process loads the SDK once), and parses its lines by run. It fails
// the test when the script itself fails (usage error, crash, timeout) but not when an
// operation fails.
func runJSClients(t testing.TB, calls ...jsCall) []jsRun {
	t.Helper()
	return runJSScript(t, "client.mjs", calls...)
}

// runJSScript is runJSClients for script: client.mjs, or client03.mjs (the 0.3.14
// client, which takes no LegacyCompat).
func runJSScript(t testing.TB, script string, calls ...jsCall) []jsRun {
	t.Helper()
	env := needNode(t)
	var args []string
	for n, call := range calls {
		if n > 0 {
			args = append(args, "--then")
		}
		args = append(args, "--target", call.Target, "--timeout-ms", fmt.Sprint(clientOpTimeout.Milliseconds()))
		if call.Transports != "" {
			args = append(args, "--transports", call.Transports)
		}
		if len(call.Prefer) > 0 {
			args = append(args, "--prefer", strings.Join(call.Prefer, ","))
		}
		if len(call.Ops) > 0 {
			args = append(args, "--ops", strings.Join(call.Ops, ","))
		}
		if call.LegacyCompat {
			args = append(args, "--legacy-compat", "true")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := env.command(ctx, script, args...)
	var stdout bytes.Buffer
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", script, strings.Join(args, " "), err, stdout.String(), stderr)
	}
	runs := make([]jsRun, len(calls))
	for n := range runs {
		runs[n].Ops = map[string]jsStep{}
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var s jsStep
		if err := json.Unmarshal([]byte(line), &s); err != nil || s.Run < 0 || s.Run >= len(runs) {
			t.Fatalf("%s: bad output line %q (%v)", script, line, err)
		}
		r := &runs[s.Run]
		r.raw += line + "\n"
		if s.Op == "create" {
			r.Create = s
		} else {
			r.Ops[s.Op] = s
		}
	}
	for n, r := range runs {
		if r.Create.Op != "create" {
			t.Fatalf("%s printed no create line for run %d:\n%s\nstderr:\n%s", script, n, stdout.String(), stderr)
		}
	}
	return runs
}
