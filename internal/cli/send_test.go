package cli

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

func sendCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(t.Context(), append([]string{"send"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// decodeSend checks the exact key sets of the `send -o json` contract and returns the
// document's outcomes.
func decodeSend(t *testing.T, stdout string) (ok bool, outcomes []string, doc map[string]any) {
	t.Helper()
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("send -o json printed invalid JSON: %v\n%s", err, stdout)
	}
	for k := range doc {
		if !slices.Contains([]string{"ok", "attempts", "result", "error"}, k) {
			t.Errorf("send -o json has unexpected key %q", k)
		}
	}
	attempts, _ := doc["attempts"].([]any)
	if attempts == nil {
		t.Fatalf("send -o json has no attempts list:\n%s", stdout)
	}
	for _, a := range attempts {
		m := a.(map[string]any)
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if diff := cmp.Diff([]string{"binding", "detail", "latencyMs", "outcome", "protocolVersion", "url"}, keys); diff != "" {
			t.Errorf("attempt keys (-want +got):\n%s", diff)
		}
		outcomes = append(outcomes, m["outcome"].(string))
	}
	ok, _ = doc["ok"].(bool)
	return ok, outcomes, doc
}

func TestSendCmd_Seed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		agent []lab.Option
		first string
	}{{"v0.3 card", lab.Seed(), "handler_missing"}, {"v1.0 card", lab.SeedV1(), "wrong_binding"}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.agent...)
			code, stdout, stderr := sendCLI(t, a.BaseURL, "hello seed", "-o", "json", "--timeout", "10s")
			if code != ExitOK {
				t.Fatalf("send exit = %d, want 0; stderr: %s", code, stderr)
			}
			ok, outcomes, doc := decodeSend(t, stdout)
			if !ok {
				t.Errorf("ok = false, want true")
			}
			if diff := cmp.Diff([]string{tt.first, "served"}, outcomes); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			task, _ := doc["result"].(map[string]any)["task"].(map[string]any)
			if task == nil || !strings.Contains(stdout, "hello seed") {
				t.Errorf("result = %v, want the echoed task", doc["result"])
			}

			// --no-cache: the first run's interface is remembered on disk otherwise.
			code, stdout, stderr = sendCLI(t, a.BaseURL, "hello text", "-v", "--no-cache")
			if code != ExitOK {
				t.Fatalf("send -v exit = %d, want 0; stderr: %s", code, stderr)
			}
			if !strings.Contains(stdout, ": completed") || !strings.Contains(stdout, "hello text") {
				t.Errorf("send stdout = %q, want the completed task and its text", stdout)
			}
			if !strings.Contains(stderr, "attempt 1:") || !strings.Contains(stderr, tt.first) || !strings.Contains(stderr, "attempt 2:") {
				t.Errorf("send -v stderr = %q, want both attempts", stderr)
			}
		})
	}
}

func TestSendCmd_Stream(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Seed()...)
	code, stdout, stderr := sendCLI(t, a.BaseURL, "streamed", "--stream")
	if code != ExitOK {
		t.Fatalf("send --stream exit = %d, want 0; stderr: %s", code, stderr)
	}
	if !strings.Contains(stdout, "artifact: streamed") || !strings.Contains(stdout, "status: completed") {
		t.Errorf("send --stream stdout = %q, want status and artifact lines", stdout)
	}
	code, stdout, _ = sendCLI(t, a.BaseURL, "streamed", "--stream", "-o", "json")
	if code != ExitOK {
		t.Fatalf("send --stream -o json exit = %d, want 0", code)
	}
	ok, outcomes, doc := decodeSend(t, stdout)
	sum, _ := doc["result"].(map[string]any)
	events, _ := sum["events"].(float64)
	last, _ := sum["last"].(map[string]any)
	if !ok || events < 2 || sum["state"] != "TASK_STATE_COMPLETED" || last == nil || outcomes[len(outcomes)-1] != "served" {
		t.Errorf("send --stream -o json = ok %v, result %v, outcomes %v; want ok, a summary of 2+ events ending completed, last served", ok, sum, outcomes)
	}
	for k := range sum {
		if !slices.Contains([]string{"events", "state", "last"}, k) {
			t.Errorf("send --stream -o json result has unexpected key %q", k)
		}
	}
}

func TestSendCmd_Failures(t *testing.T) {
	t.Parallel()
	authed := labtest.Start(t, append(lab.Healthy(), lab.WithAuth("s3cret"))...)
	seed := labtest.Start(t, lab.SeedV1()...)
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		args         []string
		wantCode     int
		wantOutcomes []string
	}{
		{"401 stops after one attempt", []string{authed.BaseURL, "hi", "-o", "json"}, ExitFailed, []string{"auth_required"}},
		{"the right header succeeds", []string{authed.BaseURL, "hi", "-o", "json", "-H", "Authorization: Bearer s3cret"}, ExitOK, []string{"served"}},
		{"forcing the binding the card lies about", []string{seed.BaseURL, "hi", "-o", "json", "--binding", "grpc"}, ExitFailed, []string{"wrong_binding", "handler_missing"}},
		{"no card", []string{"http://" + closed, "hi", "-o", "json"}, ExitUsage, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := sendCLI(t, append(tt.args, "--timeout", "10s")...)
			if code != tt.wantCode {
				t.Fatalf("send exit = %d, want %d; stdout %s stderr %s", code, tt.wantCode, stdout, stderr)
			}
			ok, outcomes, doc := decodeSend(t, stdout)
			if ok != (tt.wantCode == ExitOK) {
				t.Errorf("ok = %v, want %v", ok, tt.wantCode == ExitOK)
			}
			if diff := cmp.Diff(tt.wantOutcomes, outcomes); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			if _, hasErr := doc["error"]; hasErr == ok {
				t.Errorf("error present = %v with ok = %v", hasErr, ok)
			}
		})
	}
}

func TestSendCmd_Usage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"only-target"},
		{"http://127.0.0.1:1", "hi", "--binding", "carrier-pigeon"},
		{"http://127.0.0.1:1", "hi", "--header", "no-colon"},
	} {
		code, _, stderr := sendCLI(t, args...)
		if code != ExitUsage || stderr == "" {
			t.Errorf("send %q exit = %d (stderr %q), want %d with a message", args, code, stderr, ExitUsage)
		}
	}
	code, stdout, _ := sendCLI(t, "--help")
	if code != ExitOK || !strings.Contains(stdout, "a2abind send http://127.0.0.1:8443") {
		t.Errorf("send --help exit = %d, want 0 with examples; got %q", code, stdout)
	}
}

// TestSendThroughARelayRunsOnce (issue 43 item 1): `send --no-cache BASE hi` to an a2a-go
// agent that runs every message and relays a downstream's VersionNotSupported, to its
// lookups too, on the four interfaces its card declares: the message runs once (it ran
// four times), and send says it may have run.
func TestSendThroughARelayRunsOnce(t *testing.T) {
	for _, stream := range []bool{false, true} {
		counter := &lab.Counter{Next: lab.Relay{Err: a2a.ErrVersionNotSupported}}
		a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
			lab.WithJSONRPC(card.V03, lab.PathJSONRPCV03), lab.WithGRPC(lab.GRPCV1), lab.WithExecutor(counter),
			lab.RelayEveryCall(a2a.ErrVersionNotSupported),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("relay",
					lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1},
					lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathJSONRPCV03), Binding: lab.JSONRPC, Version: card.V03})
			}))
		args := []string{"--no-cache", a.BaseURL, "hi", "--timeout", "20s"}
		if stream {
			args = append(args, "--stream")
		}
		code, _, stderr := sendCLI(t, args...)
		if got := counter.Executions(); got != 1 {
			t.Errorf("send %v: the agent ran the message %d times, want 1; stderr:\n%s", args, got, stderr)
		}
		if code != ExitFailed || !strings.Contains(stderr, "the message may have run") {
			t.Errorf("send %v = %d, want %d with a hint that the message may have run; stderr:\n%s", args, code, ExitFailed, stderr)
		}
	}
}
