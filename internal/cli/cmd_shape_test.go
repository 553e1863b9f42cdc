package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/internal/echo"
	"github.com/a2abind/a2abind/server"
)

// Each command is built by newCmdX(g, runF) and acts in xRun(opts): these tests give
// the commands their flags and check the options runF receives, with no agent, server
// or listener started.

func TestNewCmdServe(t *testing.T) {
	defaults := serveOptions{accessLog: true, httpAddr: "127.0.0.1:8080", name: echo.Name, shutdownTimeout: server.DefaultShutdownTimeout,
		selfCheck: server.DefaultSelfCheckTimeout, taskMaxAge: server.DefaultTaskMaxAge, taskMaxCount: server.DefaultTaskMaxCount,
		taskMaxBytes: server.DefaultTaskMaxBytes, maxRequestBytes: server.DefaultMaxRequestBytes}
	var got *serveOptions
	code, stderr := runCmdF(t, newCmdServe, func(o *serveOptions) error { got = o; return nil })
	if code != ExitOK || got == nil {
		t.Fatalf("serve = %d, %s", code, stderr)
	}
	allow := cmp.AllowUnexported(serveOptions{})
	if diff := cmp.Diff(defaults, *got, allow); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	want := defaults
	want.httpAddr, want.grpcAddr, want.grpcOnHTTP, want.cardFile, want.v03, want.tenant = ":9", ":10", true, "c.json", true, "acme"
	want.sign = signingFlags{Key: "k.pem", Kid: "k1", JKU: "https://keys.example.com/jwks.json"}
	code, stderr = runCmdF(t, newCmdServe, func(o *serveOptions) error { got = o; return nil },
		"--http", ":9", "--grpc", ":10", "--grpc-on-http", "--card", "c.json", "--v03", "--tenant", "acme",
		"--sign-key", "k.pem", "--sign-kid", "k1", "--jku", "https://keys.example.com/jwks.json")
	if code != ExitOK {
		t.Fatalf("serve = %d, %s", code, stderr)
	}
	if diff := cmp.Diff(want, *got, allow); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if code, stderr := runCmdF(t, newCmdServe, func(*serveOptions) error { return nil }, "extra"); code != ExitUsage {
		t.Errorf("serve extra = %d, %s; want 2", code, stderr)
	}
}

func TestNewCmdGuard(t *testing.T) {
	var got *guardOptions
	code, stderr := runCmdF(t, newCmdGuard, func(o *guardOptions) error { got = o; return nil },
		"--upstream", "http://127.0.0.1:8080", "--listen", ":8443", "--normalize", "--interval", "5s",
		"--probe-via", "https://a.example=http://127.0.0.1:8080", "--sign-key", "k.pem", "--jku", "https://a.example/jwks.json")
	if code != ExitOK || got == nil {
		t.Fatalf("guard = %d, %s", code, stderr)
	}
	want := guardOptions{upstream: "http://127.0.0.1:8080", listen: ":8443", normalize: true, interval: 5 * time.Second,
		probeTimeout: guard.DefaultProbeTimeout, probeVia: []string{"https://a.example=http://127.0.0.1:8080"},
		shutdownTimeout: guard.DefaultShutdownTimeout, accessLog: true, maxProxied: guard.DefaultMaxProxied, sign: signingFlags{Key: "k.pem", JKU: "https://a.example/jwks.json"}}
	if diff := cmp.Diff(want, *got, cmp.AllowUnexported(guardOptions{})); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
}

func TestNewCmdExporter(t *testing.T) {
	var got *exporterOptions
	code, stderr := runCmdF(t, newCmdExporter, func(o *exporterOptions) error { got = o; return nil },
		"--listen", "127.0.0.1:9115", "--config", "e.yml")
	if code != ExitOK || got == nil {
		t.Fatalf("exporter = %d, %s", code, stderr)
	}
	if diff := cmp.Diff(exporterOptions{Listen: "127.0.0.1:9115", Config: "e.yml"}, *got,
		cmpopts.IgnoreUnexported(exporterOptions{})); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	got = nil
	code, stderr = runCmdF(t, newCmdExporter, func(o *exporterOptions) error { got = o; return nil })
	if code != ExitUsage || got != nil || !strings.Contains(stderr, "--listen ADDR") {
		t.Errorf("exporter without --listen = %d, %q, ran %v; want 2 naming --listen", code, stderr, got != nil)
	}
}

func TestNewCmdDemoAndVersion(t *testing.T) {
	ran := 0
	if code, stderr := runCmdF(t, newCmdDemo, func(o *demoOptions) error { ran++; return nil }); code != ExitOK || ran != 1 {
		t.Errorf("demo = %d, %s, ran %d", code, stderr, ran)
	}
	if code, _ := runCmdF(t, newCmdDemo, func(o *demoOptions) error { ran++; return nil }, "x"); code != ExitUsage || ran != 1 {
		t.Errorf("demo x = %d, ran %d; want 2 without running", code, ran)
	}
	var got *versionOptions
	if code, stderr := runCmdF(t, newCmdVersion, func(o *versionOptions) error { got = o; return nil }, "-o", "json"); code != ExitOK || got == nil || !got.g.json() {
		t.Errorf("version -o json = %d, %s; want the JSON global in its options", code, stderr)
	}
}

// TestSigningFlags: the signing flag group of serve and guard.
func TestSigningFlags(t *testing.T) {
	if k, err := (&signingFlags{}).key(); k != nil || err != nil {
		t.Errorf("no --sign-key: %v, %v; want nothing", k, err)
	}
	if _, err := (&signingFlags{JKU: "https://k"}).key(); err == nil || !strings.Contains(err.Error(), "need --sign-key") {
		t.Errorf("--jku alone: %v", err)
	}
	if _, err := (&signingFlags{Key: "/nonexistent.pem"}).key(); err == nil || !strings.Contains(err.Error(), "--sign-key") {
		t.Errorf("missing key file: %v", err)
	}
}

func TestNewCmdLint(t *testing.T) {
	var got *lintOptions
	code, stderr := runCmdF(t, newCmdLint, func(o *lintOptions) error { got = o; return nil },
		"card.json", "-H", "A: b", "--jwks", "k.json", "--jku-origin", "https://keys", "--require-signature", "--timeout", "2s")
	if code != ExitOK || got == nil {
		t.Fatalf("lint = %d, %s", code, stderr)
	}
	want := lintOptions{Target: "card.json", Conn: connFlags{Headers: []string{"A: b"}},
		Sig: signatureFlags{jwks: []string{"k.json"}, jkuOrigins: []string{"https://keys"}, require: true}, TimeoutSet: true}
	if diff := cmp.Diff(want, *got, cmp.AllowUnexported(lintOptions{}, signatureFlags{}), cmpopts.IgnoreFields(lintOptions{}, "g")); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	got = nil
	if code, _ := runCmdF(t, newCmdLint, func(o *lintOptions) error { got = o; return nil }, "--rules"); code != ExitOK || got == nil || !got.Rules || got.Target != "" {
		t.Errorf("lint --rules = %d, %+v", code, got)
	}
	for _, args := range [][]string{{}, {"a", "b"}, {"--rules", "x"}} {
		if code, _ := runCmdF(t, newCmdLint, func(*lintOptions) error { t.Error("ran"); return nil }, args...); code != ExitUsage {
			t.Errorf("lint %v = %d, want 2", args, code)
		}
	}
}

func TestNewCmdSign(t *testing.T) {
	var got *signOptions
	code, stderr := runCmdF(t, newCmdSign, func(o *signOptions) error { got = o; return nil },
		"card.json", "--key", "k.pem", "--kid", "k1", "--jku", "https://a/jwks.json", "--alg", "PS256", "--replace")
	if code != ExitOK || got == nil {
		t.Fatalf("sign = %d, %s", code, stderr)
	}
	want := signOptions{Target: "card.json", KeyFile: "k.pem", Kid: "k1", JKU: "https://a/jwks.json", Alg: "PS256", Replace: true}
	if diff := cmp.Diff(want, *got, cmpopts.IgnoreUnexported(signOptions{})); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if code, stderr := runCmdF(t, newCmdSign, func(*signOptions) error { t.Error("ran"); return nil }, "card.json"); code != ExitUsage || !strings.Contains(stderr, "--key") {
		t.Errorf("sign without --key = %d, %s", code, stderr)
	}
}

func TestNewCmdSend(t *testing.T) {
	var got *sendOptions
	code, stderr := runCmdF(t, newCmdSend, func(o *sendOptions) error { got = o; return nil },
		"http://agent", "hello", "--stream", "-v", "--binding", "rest", "--use", "JSONRPC@0.3=http://h:1/", "-H", "A: b",
		"--resend", "--attempt-timeout", "2s", "--no-cache", "--require-signature")
	if code != ExitOK || got == nil {
		t.Fatalf("send = %d, %s", code, stderr)
	}
	want := sendOptions{Target: "http://agent", Text: "hello", stream: true, verbose: true, bindings: []string{"rest"},
		use: []string{"JSONRPC@0.3=http://h:1/"}, conn: connFlags{Headers: []string{"A: b"}, MaxInterfaces: 32},
		resend: true, attemptTimeout: 2 * time.Second, noCache: true, sig: signatureFlags{require: true}}
	if diff := cmp.Diff(want, *got, cmp.AllowUnexported(sendOptions{}, signatureFlags{}), cmpopts.IgnoreFields(sendOptions{}, "g")); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if code, _ := runCmdF(t, newCmdSend, func(*sendOptions) error { t.Error("ran"); return nil }, "only-target"); code != ExitUsage {
		t.Errorf("send with one argument = %d, want 2", code)
	}
}

// TestCommandsRegisterInGhShape: a command joins the tree only through register, so
// every command is built by newCmdX(g, runF) and its flags can be tested through runF.
func TestCommandsRegisterInGhShape(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	registered := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if f != "root.go" && strings.Contains(src, "commands = append(") {
			t.Errorf("%s appends to commands itself: register(newCmdX) instead, with newCmdX(g, runF) and an options struct", f)
		}
		registered += strings.Count(src, "func init() { register(newCmd")
	}
	root := newRootCmd(strings.NewReader(""), new(strings.Builder), new(strings.Builder))
	if n := len(root.Commands()); n != registered {
		t.Errorf("%d commands in the tree, %d registered with register(newCmdX)", n, registered)
	}
}

func TestNewCmdKey(t *testing.T) {
	var got *keyOptions
	code, stderr := runCmdF(t, newCmdKey, func(o *keyOptions) error { got = o; return nil }, "generate", "--type", "rsa", "--bits", "4096", "k.pem")
	if code != ExitOK || got == nil {
		t.Fatalf("key generate = %d, %s", code, stderr)
	}
	if diff := cmp.Diff(keyOptions{Sub: "generate", Files: []string{"k.pem"}, Type: "rsa", Bits: 4096}, *got, cmpopts.IgnoreUnexported(keyOptions{})); diff != "" {
		t.Errorf("generate flags (-want +got):\n%s", diff)
	}
	got = nil
	if code, _ := runCmdF(t, newCmdKey, func(o *keyOptions) error { got = o; return nil }, "jwks", "a.pem", "b.pem"); code != ExitOK || got == nil || got.Sub != "jwks" || len(got.Files) != 2 {
		t.Errorf("key jwks = %d, %+v", code, got)
	}
	if code, _ := runCmdF(t, newCmdKey, func(*keyOptions) error { t.Error("ran"); return nil }, "generate"); code != ExitUsage {
		t.Errorf("key generate without FILE = %d, want 2", code)
	}
}
