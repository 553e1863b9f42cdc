package accesslog

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzJSONRPCMethod: the cheap reader of a request's method never panics, and on a
// valid JSON object whose top level names "method" once (no escapes) it reads what
// encoding/json decodes, or nothing when the member lies beyond the head.
func FuzzJSONRPCMethod(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}`,
		`{"params":{"method":"Nested"},"method":"GetTask","jsonrpc":"2.0"}`,
		`{"id":"a\"b","method" : "CancelTask"}`, `{"method":1}`, `[{"method":"x"}]`, `{"method":"cut`, `{"jsonrpc":"2.0"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _ := jsonrpcMethod(b)
		if !json.Valid(b) || bytes.Count(b, []byte(`"method"`)) != 1 || bytes.IndexByte(b, '\\') >= 0 {
			return
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(b, &top) != nil {
			return
		}
		var want string
		if json.Unmarshal(top["method"], &want) != nil {
			want = ""
		}
		if got != want && got != "" {
			t.Errorf("jsonrpcMethod(%q) = %q, encoding/json reads %q", b, got, want)
		}
		if got == "" && want != "" && bytes.HasSuffix(bytes.TrimSpace(b), []byte("}")) && len(b) > 2 {
			// the member ends before the object: it is read unless it is the last value
			// running to the end of the input
			if i := bytes.Index(b, []byte(`"method"`)); i >= 0 && bytes.ContainsAny(b[i:len(bytes.TrimSpace(b))-1], ",}") {
				t.Errorf("jsonrpcMethod(%q) = \"\", encoding/json reads %q", b, want)
			}
		}
	})
}

// TestJSONRPCMethod: the method of the request object, at the top level only.
func TestJSONRPCMethod(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{}}}`: "SendMessage",
		`{"params":{"method":"Nested"},"method":"GetTask"}`:                       "GetTask",
		` { "id" : [1, {"a":"}"}] , "method":"CancelTask"}`:                       "CancelTask",
		`{"params":{"method":"Nested"}}`:                                          "",
		`{"method":1}`:                                                            "",
		`[{"method":"x"}]`:                                                        "",
		`{"method":"cut`:                                                          "",
	} {
		if got, _ := jsonrpcMethod([]byte(in)); got != want {
			t.Errorf("jsonrpcMethod(%s) = %q, want %q", in, got, want)
		}
	}
}
