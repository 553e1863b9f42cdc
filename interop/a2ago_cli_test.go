package interop

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// a2aGoFieldRelease is the a2a-go release most agents in the field still run; the
// interop tests exercise its `a2a` command beside the one of the release a2abind builds
// with (go.mod), because the two differ on the wire (v0.3 HTTP+JSON routes, card lists).
const a2aGoFieldRelease = "v2.3.1"

// a2aGoReleases are the a2a-go releases whose `a2a` command the tests build: the field
// release and the module's own.
func a2aGoReleases(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mf.Require {
		if r.Mod.Path == "github.com/a2aproject/a2a-go/v2" {
			if r.Mod.Version == a2aGoFieldRelease {
				return []string{r.Mod.Version}
			}
			return []string{a2aGoFieldRelease, r.Mod.Version}
		}
	}
	t.Fatal("go.mod does not require github.com/a2aproject/a2a-go/v2")
	return nil
}

var a2aGoCLIs sync.Map // release -> *a2aGoCLI

type a2aGoCLI struct {
	once sync.Once
	bin  string
	err  error
}

// buildA2AGoCLI builds a2a-go's own `a2a` command (cmd/a2a) of one release, in a
// temporary module of its own outside the repository (`go mod init`, `go get
// github.com/a2aproject/a2a-go/v2@release`), once per test process; the module cache
// and the Go module proxy supply it. The binary is removed with the interop cache
// directory.
func buildA2AGoCLI(t testing.TB, release string) string {
	t.Helper()
	return buildWithA2AGo(t, release, "")
}

// buildA2AGoClient builds testdata/a2agoclient (the a2a-go client as probe's profiles
// model it) against one release, as buildA2AGoCLI does.
func buildA2AGoClient(t *testing.T, release string) string {
	t.Helper()
	return buildWithA2AGo(t, release, filepath.Join("testdata", "a2agoclient", "main.go"))
}

// buildWithA2AGo builds cmd/a2a of release, or the command of the file main when not
// empty, once per test process.
func buildWithA2AGo(t testing.TB, release, main string) string {
	t.Helper()
	v, _ := a2aGoCLIs.LoadOrStore(release+"\x00"+main, &a2aGoCLI{})
	c := v.(*a2aGoCLI)
	c.once.Do(func() { c.bin, c.err = goBuildWithA2AGo(release, main) })
	if c.err != nil {
		t.Fatalf("build %s with a2a-go %s: %v", cmp.Or(main, "cmd/a2a"), release, c.err)
	}
	return c.bin
}

func goBuildWithA2AGo(release, main string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command: %w", err)
	}
	dir, err := os.MkdirTemp(os.Getenv("XDG_CACHE_HOME"), "a2a-go-"+release+"-")
	if err != nil {
		return "", err
	}
	pkg := "github.com/a2aproject/a2a-go/v2/cmd/a2a"
	if main != "" {
		src, err := os.ReadFile(main)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644); err != nil {
			return "", err
		}
		pkg = "."
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := filepath.Join(dir, "a2a")
	for _, args := range [][]string{
		{"mod", "init", "a2abind.test/a2a-go-cli"},
		{"get", "github.com/a2aproject/a2a-go/v2@" + release},
		{"build", "-o", bin, pkg},
	} {
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return bin, nil
}

// startA2AGoEcho runs `a2a serve --echo [extra...]` on a free loopback port and returns its base URL;
// the process (group) is killed when the test ends.
func startA2AGoEcho(t testing.TB, bin string, extra ...string) string {
	t.Helper()
	return startA2AGoServe(t, bin, append([]string{"--echo"}, extra...)...)
}

// startA2AGoServe runs `a2a serve [args...]` (a mode among them: --echo, --exec CMD,
// --proxy URL) on a free loopback port and returns its base URL (with --transport grpc,
// the card listener's, which serve opens on a port of its own); the process (group) is
// killed when the test ends.
func startA2AGoServe(t testing.TB, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--host", "127.0.0.1", "--port", "0"}, args...)...) // a later --port wins
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
	exited := make(chan error, 1) // read once; ended is closed when the process is gone
	ended := make(chan struct{})
	listening := regexp.MustCompile(`^(?:Listening on (127\.0\.0\.1:\d+)|Agent card at http://[^/]*:(\d+)/)`)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			_, _ = logs.Write(append(sc.Bytes(), '\n'))
			if m := listening.FindSubmatch(sc.Bytes()); m != nil {
				addr := string(m[1])
				if len(m[2]) > 0 {
					addr = "127.0.0.1:" + string(m[2])
				}
				select {
				case ready <- addr:
				default:
				}
			}
		}
		exited <- cmd.Wait()
		close(ended)
	}()
	t.Cleanup(func() {
		cancel()
		<-ended
	})
	select {
	case addr := <-ready:
		return "http://" + addr
	case err := <-exited:
		t.Fatalf("a2a serve %s exited: %v\n%s", strings.Join(args, " "), err, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("a2a serve %s did not listen within 30s\n%s", strings.Join(args, " "), logs)
	}
	return ""
}

// TestA2AGoCLIEchoAgent is the first thing a new user tries: a2a-go's reference server
// `a2a serve --echo`, of the field release and of the module's. v2.3.1's card has
// "defaultInputModes", "defaultOutputModes" and "skills" null: probe passes (exit 0, the
// nulls are warnings) and lint passes with 3 warnings. v2.4.0 (a2a-go #372) writes
// ["text"], ["text"] and []: an empty skills list breaks A2A 1.0 §5.7 (REQUIRED arrays
// hold at least one element) but no client, so it is a warning and probe and lint pass
// (reference_test.go calls the agent with both SDKs). send gets the echo from both.
func TestA2AGoCLIEchoAgent(t *testing.T) {
	t.Parallel()
	for _, release := range a2aGoReleases(t) {
		t.Run(release, func(t *testing.T) {
			t.Parallel()
			base := startA2AGoEcho(t, buildA2AGoCLI(t, release))
			field := release == a2aGoFieldRelease

			out, code := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", base)
			var p probeOutput
			if err := json.Unmarshal(out, &p); err != nil {
				t.Fatalf("probe -o json: %v\n%s", err, out)
			}
			if len(p.Interfaces) != 1 || p.Interfaces[0].Outcome != wire.Served {
				t.Fatalf("probe interfaces %+v, want one served interface\n%s", p.Interfaces, out)
			}
			var errs, nulls []string
			for _, f := range p.Findings {
				if f.Severity == string(card.SeverityError) {
					errs = append(errs, f.Code)
				}
				if f.Code == "field-null" {
					nulls = append(nulls, f.Code)
				}
			}
			wantCode, wantErrs, wantNulls, wantLint := 0, []string(nil), 3, "ok: 3 warnings"
			if !field {
				wantCode, wantErrs, wantNulls, wantLint = 0, nil, 0, "ok: 1 warning"
			}
			if code != wantCode || p.OK != (wantCode == 0) || !slices.Equal(errs, wantErrs) || len(nulls) != wantNulls {
				t.Errorf("probe = exit %d, ok %v, errors %v, %d field-null; want exit %d, errors %v, %d field-null\n%s",
					code, p.OK, errs, len(nulls), wantCode, wantErrs, wantNulls, out)
			}
			if out, code := runA2abind(t, "lint", base); code != wantCode || !strings.Contains(string(out), wantLint) {
				t.Errorf("lint = exit %d, want %d and %q\n%s", code, wantCode, wantLint, out)
			}

			out, code = runA2abind(t, "send", "-o", "json", "--no-cache", "--timeout", "20s", base, "hello a2a-go")
			var s sendOutput
			if err := json.Unmarshal(out, &s); err != nil {
				t.Fatalf("send -o json: %v\n%s", err, out)
			}
			if code != 0 || !s.OK || !strings.Contains(string(s.Result), "hello a2a-go") {
				t.Errorf("send = exit %d, ok %v, result %s; want exit 0 and the echo", code, s.OK, s.Result)
			}
		})
	}
}

// TestA2AGoCLIVersionDrift: `a2a serve --echo --protocol 0.3` serves HTTP+JSON 0.3
// under a card that stamps protocolVersion 1.0 (the CLI's drift, in both releases).
// probe says version_mismatch, really there HTTP+JSON 0.3, and names each request once:
// v2.3.1 serves 0.3 at {url}/tasks/{id}, the 1.0 lookup's own route; v2.4.0 at
// {url}/v1/tasks/{id}.
func TestA2AGoCLIVersionDrift(t *testing.T) {
	t.Parallel()
	for _, release := range a2aGoReleases(t) {
		t.Run(release, func(t *testing.T) {
			t.Parallel()
			base := startA2AGoEcho(t, buildA2AGoCLI(t, release), "--protocol", "0.3")
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
			if code != 1 || len(p.Interfaces) != 1 || p.Interfaces[0].Outcome != wire.VersionMismatch ||
				p.Interfaces[0].ActualBinding != "HTTP+JSON" || !strings.Contains(p.Interfaces[0].Detail, "HTTP+JSON 0.3") {
				t.Fatalf("probe = exit %d, %+v; want exit 1 and one version_mismatch interface, really HTTP+JSON 0.3", code, p.Interfaces)
			}
			detail := p.Interfaces[0].Detail
			wantRequests := map[bool]int{true: 1, false: 2}[release == a2aGoFieldRelease]
			requests := regexp.MustCompile(`HTTP\+JSON GET \S+`).FindAllString(detail, -1)
			seen := map[string]bool{}
			for _, r := range requests {
				if seen[r] {
					t.Errorf("the evidence names %s twice:\n%s", r, detail)
				}
				seen[r] = true
			}
			if len(seen) != wantRequests {
				t.Errorf("the evidence names %d requests, want %d:\n%s", len(seen), wantRequests, detail)
			}
		})
	}
}

// TestA2AGoCLIClientsV03REST: the two releases' clients speak different v0.3 HTTP+JSON
// routes (v2.3.1 {url}/message:send, v2.4.0 {url}/v1/message:send). Each release's
// `a2a serve --echo --protocol 0.3`, with a card that declares its HTTP+JSON 0.3
// honestly, is called by each release's `a2a send`: only the same release gets the
// echo. probe's profiles a2a-go-v03-compat (v2.4.0) and a2a-go-v2.3.1-v03-compat
// predict each real client's result.
func TestA2AGoCLIClientsV03REST(t *testing.T) {
	t.Parallel()
	releases := a2aGoReleases(t)
	if len(releases) < 2 {
		t.Skipf("the module builds with a2a-go %s, the field release: nothing differs", releases[0])
	}
	profile := map[string]string{a2aGoFieldRelease: "a2a-go-v2.3.1-v03-compat", releases[1]: "a2a-go-v03-compat"}
	for _, server := range releases {
		t.Run("server "+server, func(t *testing.T) {
			t.Parallel()
			base := startA2AGoEchoWithCard(t, buildA2AGoCLI(t, server), "0.3", "HTTP+JSON")
			out, _ := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", base)
			var p probeOutput
			if err := json.Unmarshal(out, &p); err != nil {
				t.Fatalf("probe -o json: %v\n%s", err, out)
			}
			if len(p.Interfaces) != 1 || p.Interfaces[0].Outcome != wire.Served {
				t.Fatalf("probe interfaces %+v, want HTTP+JSON 0.3 served\n%s", p.Interfaces, out)
			}
			predicted := map[string]bool{}
			for _, c := range p.Clients {
				predicted[c.Profile] = c.OK
			}
			for _, client := range releases {
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				sent, err := exec.CommandContext(ctx, buildA2AGoCLI(t, client), "send", base, "hello "+client).CombinedOutput()
				cancel()
				gotOK := err == nil && strings.Contains(string(sent), "hello "+client)
				if want := client == server; gotOK != want {
					t.Errorf("a2a-go %s `a2a send` to a2a-go %s: ok = %v, want %v\n%s", client, server, gotOK, want, sent)
				}
				if ok, found := predicted[profile[client]]; !found || ok != gotOK {
					t.Errorf("profile %s predicts ok = %v (found %v), the real a2a-go %s client: %v\n%s", profile[client], ok, found, client, gotOK, out)
				}
			}
		})
	}
}

// startA2AGoEchoWithCard runs `a2a serve --echo --protocol version` with a card that
// declares one interface, binding and version, at the server's own URL (a free port
// chosen first, since the card must name it).
func startA2AGoEchoWithCard(t *testing.T, bin, version, binding string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	c := map[string]any{
		"name": "a2a-go echo", "description": "a2a serve --echo", "version": "1.0.0",
		"capabilities": map[string]any{"streaming": true}, "defaultInputModes": []string{"text"}, "defaultOutputModes": []string{"text"},
		"skills":              []map[string]any{{"id": "echo", "name": "echo", "description": "echoes", "tags": []string{"echo"}}},
		"supportedInterfaces": []map[string]any{{"url": base, "protocolBinding": binding, "protocolVersion": version}},
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got := startA2AGoEcho(t, bin, "--protocol", version, "--card", file, "--port", fmt.Sprint(port))
	if got != base {
		t.Fatalf("a2a serve listens at %s, the card says %s", got, base)
	}
	return base
}
