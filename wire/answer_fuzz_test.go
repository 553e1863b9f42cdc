package wire_test

import (
	"bytes"
	"mime"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/wire"
)

// FuzzParseJSONRPC feeds arbitrary bytes to the JSON-RPC response parser: it
// must never panic, and what it accepts must be a result or an error with a code.
func FuzzParseJSONRPC(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"id":"t-1","status":{"state":"TASK_STATE_COMPLETED"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"method":"GetTask"}}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"Content type not supported"}}`,
		`{"jsonrpc":"2.0","result":null}`,
		`{"jsonrpc":"1.0","result":1}`,
		`{"jsonrpc":"2.0","error":{"code":1e3}}`,
		`{"jsonrpc":"2.0","error":{"code":-99999999999}}`,
		`{"jsonrpc":"2.0","result":1,"error":{"code":-1}}`,
		`{"error":{"code":404,"status":"NOT_FOUND","message":"x"}}`,
		"404 page not found\n", "", "{", "\x00\x00\x06\x04", `[{"jsonrpc":"2.0"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := wire.ParseJSONRPC(b)
		if err != nil {
			return
		}
		if r.Result == (r.Code != 0) {
			t.Fatalf("ParseJSONRPC(%q) = %+v: want exactly one of a result and an error code", b, r)
		}
		_ = r.String()
		o, _ := wire.Classify(wire.Evidence{Binding: a2a.TransportProtocolJSONRPC, HTTPStatus: 200, JSONRPCCode: r.Code, Reason: r.Reason, Framing: a2a.TransportProtocolJSONRPC})
		if !slices.Contains(wire.Outcomes(), o) {
			t.Fatalf("Classify() = %q, not an outcome", o)
		}
	})
}

// FuzzParseStatus feeds arbitrary bytes to the HTTP+JSON error body parser.
func FuzzParseStatus(f *testing.F) {
	for _, s := range []string{
		`{"error":{"code":404,"status":"NOT_FOUND","message":"failed to get task: task not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"x"}}]}}`,
		`{"error":{"code":400,"status":"FAILED_PRECONDITION","details":[{"reason":"VERSION_NOT_SUPPORTED"}]}}`,
		`{"error":{"code":"404"}}`, `{"error":{"code":4.5}}`, `{"error":null}`, `{"error":{"code":-1}}`,
		`{"error":{"code":404,"details":{"reason":"X"}}}`, `{"error":{"code":404,"details":[1,"a",null]}}`,
		`{"type":"about:blank","title":"Not Found","status":404}`, "", "null", "[]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, ok := wire.ParseStatus(b)
		if !ok {
			if s.Framing != "" || s.Code != 0 || s.Reason != "" {
				t.Fatalf("ParseStatus(%q) rejected but returned %+v", b, s)
			}
			return
		}
		if s.Code < 0 || s.Code > 999 {
			t.Fatalf("ParseStatus(%q).Code = %d, not an HTTP status", b, s.Code)
		}
		_ = s.String()
		if r := wire.ReadAnswer("application/problem+json", b); r.Version != "0.3" {
			t.Fatalf("ReadAnswer(problem+json, %q).Version = %q, want 0.3", b, r.Version)
		}
	})
}

// FuzzParseFlatError feeds arbitrary bytes to the parser of a2a-js's v0.3 REST error
// body: it must never panic, and what it accepts carries a JSON-RPC-range code.
func FuzzParseFlatError(f *testing.F) {
	for _, s := range []string{
		`{"code":-32001,"message":"Task not found: abc"}`,
		`{"code":-32601,"message":"Method not found","data":{}}`,
		`{"code":404,"message":"not found"}`,
		`{"jsonrpc":"2.0","code":-32001,"message":"x"}`,
		`{"error":{"code":-32001},"code":-32001,"message":"x"}`,
		`{"code":-32001}`, `{"code":"-32001","message":"x"}`, `{"code":-3.2e4,"message":""}`,
		`{"code":-99999999999999999999,"message":"x"}`, `[]`, `null`, "", "{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, ok := wire.ParseFlatError(b)
		if !ok {
			return
		}
		if e.Code < -32768 || e.Code > -31000 {
			t.Fatalf("ParseFlatError(%q) = %+v: code out of range", b, e)
		}
		_ = e.String()
	})
}

// FuzzReadAnswer feeds arbitrary bodies, as JSON and as an event stream, to the one
// reader of answer bodies: it must never panic, a recognised framing carries what it
// says, and what it reads classifies into a known outcome.
func FuzzReadAnswer(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32009,"message":"v","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED","metadata":{"a":"b"}}]}}`,
		`{"error":{"code":400,"status":"FAILED_PRECONDITION","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"VERSION_NOT_SUPPORTED"}]}}`,
		`{"code":-32001,"message":"Task not found"}`, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"event: x\ndata:\n", "", "<html/>",
	} {
		f.Add("application/json", []byte(s))
		f.Add("text/event-stream", []byte(s))
	}
	f.Fuzz(func(t *testing.T, contentType string, b []byte) {
		r := wire.ReadAnswer(contentType, b)
		switch r.Framing {
		case "", wire.Unrecognised, a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON:
		default:
			t.Fatalf("ReadAnswer(%q) framing %q", b, r.Framing)
		}
		if r.Framing == a2a.TransportProtocolJSONRPC && r.Result == (r.Code != 0) {
			t.Fatalf("ReadAnswer(%q) = %+v: want exactly one of a result and an error code", b, r)
		}
		_ = r.String()
		for _, binding := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
			ev := wire.Evidence{Binding: binding, HTTPStatus: 200, Sent: true}
			r.Fill(&ev)
			if o, why := wire.Classify(ev); !slices.Contains(wire.Outcomes(), o) || strings.TrimSpace(why) == "" {
				t.Fatalf("Classify(%+v) = %q, %q", ev, o, why)
			}
		}
	})
}

// FuzzReadAnswerShapes holds ReadAnswer, which skips the JSON-RPC parse for a body
// that cannot be one, to the answers of trying every shape in turn (JSON-RPC, then
// google.rpc.Status, then the flat v0.3 error) on any body and media type.
func FuzzReadAnswerShapes(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]}}`,
		`{"JSONRPC":"2.0","result":{}}`, `{"jsonrpc":"\u0032.0","result":1}`, `{"j\u0073onrpc":"2.0","result":1}`,
		`{"jsonrpc":"2.0 ","result":1}`, `{"jsonrpc":"2.0","jsonrpc":"1.0","result":1}`,
		`{"error":{"code":404,"status":"NOT_FOUND","message":"x","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]}}`,
		`{"jsonrpc":"2.0","error":{"code":404,"status":"NOT_FOUND","message":"x"}}`,
		`{"code":-32001,"message":"Task not found"}`, `{"code":-32001,"message":"\u0032.0"}`,
		"", "{", "null",
	} {
		for _, ct := range []string{"application/json", "application/problem+json", "application/a2a+json", ""} {
			f.Add(ct, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, contentType string, b []byte) {
		if mt, _, _ := mime.ParseMediaType(contentType); mt == "text/event-stream" {
			return // the first event's data is taken out as before, then read as any body
		}
		if got, want := wire.ReadAnswer(contentType, b), readInTurn(contentType, b); !reflect.DeepEqual(got, want) {
			t.Fatalf("ReadAnswer(%q, %q) = %+v, trying every shape in turn = %+v", contentType, b, got, want)
		}
	})
}

// readInTurn is ReadAnswer, for a media type other than text/event-stream, as it was
// before it skipped the JSON-RPC parse of bodies that cannot be JSON-RPC: every shape
// tried in turn.
func readInTurn(contentType string, body []byte) wire.Answer {
	mt, _, _ := mime.ParseMediaType(contentType)
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return wire.Answer{}
	}
	if a, err := wire.ParseJSONRPC(body); err == nil {
		return a
	}
	if a, ok := wire.ParseStatus(body); ok {
		switch {
		case mt == "application/problem+json":
			a.Version = "0.3"
		case a.Reason != "" && (mt == "application/json" || mt == "application/a2a+json"):
			a.Version = "1.0"
		}
		return a
	}
	if a, ok := wire.ParseFlatError(body); ok {
		return a
	}
	return wire.Answer{Framing: wire.Unrecognised}
}
