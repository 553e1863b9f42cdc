package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// guardInBackground runs `a2abind guard args... -o json` until the returned stop is
// called, waits for its first round and returns the guard's base URL.
func guardInBackground(t *testing.T, args ...string) (base string, logs *syncBuffer, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs = &syncBuffer{}
	var out bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"guard", "-o", "json", "--listen", "127.0.0.1:0"}, args...), strings.NewReader(""), &out, logs)
	}()
	var once sync.Once
	result := -1
	stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case result = <-code:
			case <-time.After(15 * time.Second):
				t.Errorf("guard did not stop after cancel; logs:\n%s", logs)
			}
		})
		return result
	}
	t.Cleanup(func() { stop() })
	deadline := time.After(30 * time.Second)
	for {
		select {
		case c := <-code:
			result = c
			once.Do(func() { cancel() })
			t.Fatalf("guard exited with %d before its first round; logs:\n%s", c, logs)
		case <-deadline:
			t.Fatalf("guard: no first round after 30s; logs:\n%s", logs)
		case <-time.After(20 * time.Millisecond):
		}
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				continue
			}
			if rec["msg"] == "guard listening" {
				base, _ = rec["url"].(string)
			}
			if _, ok := rec["round"]; ok && base != "" {
				return base, logs, stop
			}
		}
	}
}

// TestGuardCmd_NormalizeMakesTheSeedUsable: behind `a2abind guard --normalize`, both seed
// agents' cards pass `a2abind probe` and `a2abind send` succeeds in one attempt.
func TestGuardCmd_NormalizeMakesTheSeedUsable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		agent []lab.Option
	}{{"v0.3 card", lab.Seed()}, {"v1.0 card", lab.SeedV1()}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.agent...)
			base, logs, stop := guardInBackground(t, "--upstream", a.BaseURL, "--normalize")

			if code, stdout, stderr := probeCLI(t, "", "probe", base, "-o", "json", "--timeout", "20s"); code != ExitOK {
				t.Errorf("probe of the guard = %d, want 0\n%s\n%s", code, stdout, stderr)
			}
			code, stdout, stderr := sendCLI(t, base, "hello guard", "-o", "json", "--timeout", "20s")
			if code != ExitOK {
				t.Fatalf("send through the guard's card = %d, want 0; stderr: %s", code, stderr)
			}
			if _, outcomes, _ := decodeSend(t, stdout); !cmp.Equal(outcomes, []string{"served"}) {
				t.Errorf("send attempts = %v, want one, served", outcomes)
			}
			if got := stop(); got != ExitOK {
				t.Errorf("guard exit after cancel = %d, want 0", got)
			}
			for _, msg := range []string{`"msg":"card published normalized"`, `"removed":`, `"msg":"stopped"`} {
				if !strings.Contains(logs.String(), msg) {
					t.Errorf("guard logs lack %s:\n%s", msg, logs)
				}
			}
		})
	}
}

// TestGuardCmd_StrictWithholdsTheSeed: strict mode withholds the seed's card, so probe
// and send cannot obtain it (exit 2), and the log names the interfaces and causes.
func TestGuardCmd_StrictWithholdsTheSeed(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Seed()...)
	base, logs, _ := guardInBackground(t, "--upstream", a.BaseURL)
	if code, _, stderr := probeCLI(t, "", "probe", base, "--timeout", "20s"); code != ExitUsage || !strings.Contains(stderr, "503") {
		t.Errorf("probe of the strict guard = %d (%s), want 2 with the 503", code, stderr)
	}
	for _, msg := range []string{`"msg":"card withheld"`, `"msg":"not served"`, `"code":"preferred-not-served"`, `handler_missing`} {
		if !strings.Contains(logs.String(), msg) {
			t.Errorf("guard logs lack %s:\n%s", msg, logs)
		}
	}
}

func TestGuardCmd_UsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"guard", "--listen", "127.0.0.1:0"}, "--upstream is required"},
		{[]string{"guard", "--upstream", "http://127.0.0.1:1"}, "--listen is required"},
		{[]string{"guard", "--upstream", "ftp://x", "--listen", "127.0.0.1:0"}, "http:// or https://"},
		{[]string{"guard", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--probe-via", "agent.example.com:443=http://127.0.0.1:1"}, "both sides"},
		{[]string{"guard", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--interval", "0s"}, "must be positive"},
		{[]string{"guard", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--max-proxied", "0"}, "--max-proxied must be positive"},
		{[]string{"guard", "--upstream", "http://127.0.0.1:1", "--listen", "256.0.0.1:1"}, "listen"},
		{[]string{"guard", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--sign-key", "k.pem"}, "add --normalize"},
		{[]string{"guard", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--jku", "https://x/j"}, "need --sign-key"},
		{[]string{"guard", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--normalize", "--sign-key", "/nonexistent.pem"}, "--sign-key"},
	} {
		code, _, stderr := probeCLI(t, "", tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v = %d %q, want 2 saying %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestGuardCmd_AccessLog: the guard logs one line per request by default and none with
// --access-log=false.
func TestGuardCmd_AccessLog(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	for _, tt := range []struct {
		args  []string
		lines bool
	}{{nil, true}, {[]string{"--access-log=false"}, false}} {
		base, logs, stop := guardInBackground(t, append([]string{"--upstream", a.BaseURL}, tt.args...)...)
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		stop()
		if got := strings.Contains(logs.String(), `"msg":"request","binding":"","method":"","http":"GET","path":"/healthz","status":200`); got != tt.lines {
			t.Errorf("guard %v: access log line for /healthz = %v, want %v; logs:\n%s", tt.args, got, tt.lines, logs)
		}
	}
}
