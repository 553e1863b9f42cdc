package wire

import (
	"strconv"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/internal/wording"
)

// concatString is Answer.String as it was first written, by concatenation: the oracle
// the one-buffer rendering is held to.
func concatString(a Answer) string {
	switch {
	case a.Framing == a2a.TransportProtocolJSONRPC && a.Result:
		return "JSON-RPC result"
	case a.Framing == a2a.TransportProtocolJSONRPC:
		s := "JSON-RPC error " + strconv.Itoa(a.Code)
		if a.Reason != "" {
			s += " " + a.Reason
		}
		if a.Message != "" {
			s += " " + string(AppendQuote(nil, wording.Truncate(a.Message, 100)))
		}
		return s
	case a.Flat:
		return "error " + strconv.Itoa(a.Code) + " " + string(AppendQuote(nil, wording.Truncate(a.Message, 100)))
	case a.Framing == a2a.TransportProtocolHTTPJSON:
		out := "error " + strconv.Itoa(a.Code) + " " + a.Status
		if a.Reason != "" {
			out += " " + a.Reason
		}
		if a.Message != "" {
			out += " " + string(AppendQuote(nil, wording.Truncate(a.Message, 100)))
		}
		return out
	}
	return ""
}

func TestAnswerStringOneBuffer(t *testing.T) {
	long := strings.Repeat("é\"\x01", 80)
	for _, f := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, Unrecognised, ""} {
		for _, flat := range []bool{false, true} {
			for _, result := range []bool{false, true} {
				for _, msg := range []string{"", "task not found", long, "\u2028<>&"} {
					for _, reason := range []string{"", "TASK_NOT_FOUND"} {
						a := Answer{Framing: f, Flat: flat, Result: result, Code: -32001, Status: "NOT_FOUND", Reason: reason, Message: msg}
						if got, want := a.String(), concatString(a); got != want {
							t.Errorf("%+v: String() = %q, want %q", a, got, want)
						}
					}
				}
			}
		}
	}
}

func FuzzAnswerString(f *testing.F) {
	f.Add("JSONRPC", false, -32001, "NOT_FOUND", "TASK_NOT_FOUND", "task not found")
	f.Add("HTTP+JSON", false, 404, "NOT_FOUND", "", "x\"y")
	f.Add("", true, -32001, "", "", "")
	f.Fuzz(func(t *testing.T, framing string, flat bool, code int, status, reason, msg string) {
		a := Answer{Framing: a2a.TransportProtocol(framing), Flat: flat, Code: code, Status: status, Reason: reason, Message: msg}
		if got, want := a.String(), concatString(a); got != want {
			t.Fatalf("%+v: String() = %q, want %q", a, got, want)
		}
	})
}
