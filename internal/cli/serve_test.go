package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2abind/a2abind/lab"
)

// syncBuffer is a bytes.Buffer safe for the serve goroutine to write while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveInBackground runs `a2abind serve args... -o json` until the returned stop is
// called; it waits for the "ready" log line and returns the published card URL.
func serveInBackground(t *testing.T, args ...string) (cardURL string, logs *syncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs = &syncBuffer{}
	var out bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"serve", "-o", "json"}, args...), strings.NewReader(""), &out, logs)
	}()
	var once sync.Once
	result := -1
	stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case result = <-code:
			case <-time.After(15 * time.Second):
				t.Errorf("serve did not stop after cancel; logs:\n%s", logs)
			}
		})
		return result
	}
	t.Cleanup(func() { stop() })
	deadline := time.After(15 * time.Second)
	for {
		select {
		case c := <-code:
			result = c
			once.Do(func() { cancel() })
			t.Fatalf("serve exited with %d before it was ready; logs:\n%s", c, logs)
		case <-deadline:
			t.Fatalf("serve not ready after 15s; logs:\n%s", logs)
		case <-time.After(20 * time.Millisecond):
		}
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "ready: card published" {
				return rec["card"].(string), logs, stop
			}
		}
	}
}

func TestServeCmd_PublishesACardProbeFindsServed(t *testing.T) {
	t.Parallel()
	cardURL, logs, stop := serveInBackground(t, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--grpc-on-http", "--v03")
	base := strings.TrimSuffix(cardURL, "/.well-known/agent-card.json")

	probeServed(t, base, 8)

	if got := stop(); got != ExitOK {
		t.Errorf("serve exit after cancel = %d, want %d", got, ExitOK)
	}
	for _, msg := range []string{`"msg":"serving"`, `"msg":"self-check"`, `"outcome":"served"`, `"msg":"shutting down: card and readiness withdrawn"`, `"msg":"stopped"`} {
		if !strings.Contains(logs.String(), msg) {
			t.Errorf("serve logs lack %s:\n%s", msg, logs)
		}
	}
}

// probeServed runs `a2abind probe BASE -o json` and fails t unless it exits 0 with want
// interfaces, every one served.
func probeServed(t *testing.T, base string, want int) {
	t.Helper()
	code, stdout, stderr := probeCLI(t, "", "probe", base, "-o", "json")
	if code != ExitOK {
		t.Fatalf("probe exit = %d, want %d; stdout:\n%s\nstderr:\n%s", code, ExitOK, stdout, stderr)
	}
	var doc struct {
		OK         bool `json:"ok"`
		Interfaces []struct {
			Binding string `json:"binding"`
			Version string `json:"protocolVersion"`
			Outcome string `json:"outcome"`
		} `json:"interfaces"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("probe -o json: %v\n%s", err, stdout)
	}
	if !doc.OK || len(doc.Interfaces) != want {
		t.Fatalf("probe ok = %v with %d interfaces, want true with %d:\n%s", doc.OK, len(doc.Interfaces), want, stdout)
	}
	for _, i := range doc.Interfaces {
		if i.Outcome != "served" {
			t.Errorf("probe %s %s = %s, want served", i.Binding, i.Version, i.Outcome)
		}
	}
}

func TestServeCmd_RefusesTheSeedCard(t *testing.T) {
	t.Parallel()
	httpAddr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	grpcAddr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + httpAddr
	seed := lab.V03Card("seed-agent", base, lab.GRPC,
		lab.Decl{URL: base, Binding: lab.JSONRPC}, lab.Decl{URL: grpcAddr, Binding: lab.GRPC})
	raw, _ := json.Marshal(seed)
	file := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := probeCLI(t, "", "serve", "--http", httpAddr, "--grpc", grpcAddr, "--v03", "--card", file)
	if code != ExitFailed {
		t.Fatalf("serve exit = %d, want %d; stderr:\n%s", code, ExitFailed, stderr)
	}
	for _, frag := range []string{"card refused", "url+preferredTransport (the preferred entry) declares GRPC 0.3 at " + base, "gRPC is not served at that address", "clients that honour the card's preference fail"} {
		if !strings.Contains(stderr, frag) {
			t.Errorf("serve stderr lacks %q:\n%s", frag, stderr)
		}
	}
}

func TestServeCmd_UsageErrors(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"name": "x", "supportedInterfaces": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"malformed card", []string{"--http", "127.0.0.1:0", "--card", bad}, "truncated JSON"},
		{"missing card file", []string{"--http", "127.0.0.1:0", "--card", filepath.Join(t.TempDir(), "none.json")}, "no such file"},
		{"certificate without key", []string{"--tls-cert", "x.pem"}, "--tls-cert and --tls-key go together"},
		{"bad public URL", []string{"--http", "127.0.0.1:0", "--public-url", "agent.example.com"}, "must be an absolute http:// or https:// URL"},
		{"stray argument", []string{"extra"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := probeCLI(t, "", append([]string{"serve"}, tt.args...)...)
			if code != ExitUsage {
				t.Errorf("serve exit = %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("serve stderr = %q, want it to contain %q", stderr, tt.want)
			}
		})
	}
}

// TestServeExitsWithinTheShutdownTimeout: idle and half-open connections on every
// listener do not hold serve past --shutdown-timeout (grpc-go alone waits up to 120 s
// for the HTTP/2 preface of an idle connection).
func TestServeExitsWithinTheShutdownTimeout(t *testing.T) {
	_, logs, stop := serveInBackground(t, "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--shutdown-timeout", "1s")
	var addrs []string
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["msg"] == "serving" {
			addrs = append(addrs, hostPortOf(rec["listen"].(string)))
		}
	}
	if len(addrs) != 3 {
		t.Fatalf("serving lines name %v, want JSON-RPC, gRPC and HTTP+JSON", addrs)
	}
	for _, addr := range addrs {
		idle, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer idle.Close()
		half, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer half.Close()
		_, _ = half.Write([]byte("PRI * HTTP/2.0\r\n"))
		_ = half.(*net.TCPConn).CloseWrite()
	}
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d, want 0; logs:\n%s", code, logs)
	}
	took := time.Since(start)
	t.Logf("serve exited %v after the signal (--shutdown-timeout 1s)", took.Round(time.Millisecond))
	if took > 8*time.Second { // generous against a loaded machine; the bug was 119 s
		t.Errorf("serve took %v to exit, want about --shutdown-timeout 1s", took)
	}
}

// hostPortOf is the host:port of a listen address logged as a URL or a bare host:port.
func hostPortOf(listen string) string {
	if u, err := url.Parse(listen); err == nil && u.Host != "" {
		return u.Host
	}
	return listen
}

func TestServeRefusesNonPositiveLimits(t *testing.T) {
	for _, flag := range []string{"--task-max-age=0s", "--task-max-count=0", "--task-max-bytes=-1", "--max-request-bytes=0"} {
		var out, errs bytes.Buffer
		if code := run(context.Background(), []string{"serve", "--http", "127.0.0.1:0", flag}, strings.NewReader(""), &out, &errs); code != 2 {
			t.Errorf("serve %s = exit %d, want 2; stderr %s", flag, code, errs.String())
		}
	}
}
