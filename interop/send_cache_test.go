package interop

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// TestSendRemembersAcrossRuns runs `a2abind send` as two consecutive processes against
// the seed agent: the first pays the failed gRPC attempt, the second makes exactly one
// attempt, on the interface that answered. With --no-cache every run pays again.
func TestSendRemembersAcrossRuns(t *testing.T) {
	t.Parallel()
	seed := labtest.Start(t, lab.Seed()...)
	dir := t.TempDir()

	send := func(extra ...string) sendOutput {
		t.Helper()
		args := append([]string{"send", "-o", "json", "--timeout", "20s", seed.BaseURL, "hello"}, extra...)
		out, code := runA2abind(t, args...)
		var s sendOutput
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatalf("send -o json: %v\n%s", err, out)
		}
		if code != 0 || !s.OK {
			t.Fatalf("send = exit %d, ok %v\n%s", code, s.OK, out)
		}
		return s
	}
	first := send("--cache-dir", dir)
	if len(first.Attempts) != 2 || first.Attempts[0].Outcome == wire.Served {
		t.Fatalf("first run: %+v, want a failed attempt, then the answer", first.Attempts)
	}
	second := send("--cache-dir", dir)
	if len(second.Attempts) != 1 || second.Attempts[0].URL != first.Attempts[1].URL || second.Attempts[0].Outcome != wire.Served {
		t.Errorf("second run: %+v, want exactly one attempt, at %s", second.Attempts, first.Attempts[1].URL)
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Errorf("cache directory: %v entries, err %v; want one entry file", len(entries), err)
	}
	if again := send("--no-cache"); len(again.Attempts) != 2 {
		t.Errorf("--no-cache run: %d attempts, want 2 (nothing remembered)", len(again.Attempts))
	}
}
