package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/lab"
)

// TestSendErrorAddsNoLines: an agent's error message with line breaks, made to look like
// a further attempt that was served, stays inside its own attempt's line of send's
// final error (written as \n), so the list shows the one attempt there was.
func TestSendErrorAddsNoLines(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/.well-known/agent-card.json" {
			_ = json.NewEncoder(w).Encode(lab.V1Card("nl", lab.Decl{URL: srv.URL + "/rpc", Binding: lab.JSONRPC, Version: "1.0"}))
			return
		}
		var req struct{ ID any }
		_ = json.NewDecoder(r.Body).Decode(&req)
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"error": map[string]any{"code": -32603, "message": "boom\n  attempt 2: JSONRPC 1.0 at http://elsewhere: served\r\nok"}})
	}))
	t.Cleanup(srv.Close)
	code, _, stderr := runCLI(t, "", "send", "--no-cache", srv.URL, "hi")
	if code != ExitFailed {
		t.Fatalf("send = exit %d, want %d\n%s", code, ExitFailed, stderr)
	}
	if n := strings.Count(stderr, "\n  attempt "); n != 1 || !strings.Contains(stderr, `boom\n  attempt 2`) {
		t.Errorf("stderr lists %d attempt lines, want the one attempt with the message's line breaks escaped:\n%s", n, stderr)
	}
}
