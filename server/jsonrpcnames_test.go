package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestJSONRPCAcceptsProtoFieldNames: JSON-RPC 1.0 params are ProtoJSON, so "history_length"
// is read as "historyLength" (the A2A TCK's JSON-RPC client sends the proto name). A
// request whose envelope has a case-variant member is passed on as sent, so that the
// method the rename is guided by is the one a2a-go runs.
func TestJSONRPCAcceptsProtoFieldNames(t *testing.T) {
	srv := startAskFirst(t)
	c := clientFor(t, srv, a2a.TransportProtocolJSONRPC)
	res, err := c.SendMessage(t.Context(), userText("one", ""))
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*a2a.Task).ID
	if _, err := c.SendMessage(t.Context(), userText("again", id)); err != nil {
		t.Fatal(err)
	}
	history := func(body string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.LocalBaseURL()+PathJSONRPC, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		code, _, out := do(t, req)
		var resp struct {
			Result *a2a.Task `json:"result"`
		}
		if code != http.StatusOK || json.Unmarshal([]byte(out), &resp) != nil || resp.Result == nil {
			t.Fatalf("%s = %d %s, want a task", body, code, out)
		}
		return len(resp.Result.History)
	}
	for _, tt := range []struct {
		params string
		want   int
	}{
		{`"id":%q,"history_length":1`, 1},
		{`"id":%q,"historyLength":1`, 1},
		{`"id":%q,"history_length":0`, 0},
		{`"id":%q,"historyLength":1,"history_length":0`, 1}, // both: the JSON name wins
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{`+tt.params+`}}`, id)
		if got := history(body); got != tt.want {
			t.Errorf("%s: %d messages, want %d", body, got, tt.want)
		}
	}
	all := history(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":%q}}`, id))
	if all < 2 {
		t.Fatalf("without a limit: %d messages, want >= 2", all)
	}
	variant := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"Method":"GetTask","params":{"id":%q,"history_length":1}}`, id)
	if got := history(variant); got != all {
		t.Errorf("case-variant envelope: %d messages, want it passed on unrenamed (%d)", got, all)
	}
}

func FuzzJSONRPCJSONNames(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","history_length":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"message_id":"m","parts":[{"text":"x"}]},"configuration":{"history_length":0}}}`,
		`[{"method":"GetTask"}]`, `{"method":1}`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := jsonrpcJSONNames(b)
		if string(out) != string(b) && !json.Valid(out) {
			t.Fatalf("%q rewritten to invalid JSON %q", b, out)
		}
	})
}
