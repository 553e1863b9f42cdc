package wire

import (
	"encoding/json"
	"reflect"
	"testing"
)

// envelopeSeeds are bodies that tell the scan and encoding/json apart if they differ:
// case-variant and escaped member names (the long s folds to s), duplicates (encoding/
// json merges a repeated object), nulls, a quoted code, values of the wrong type,
// members of the other shape, whitespace, invalid JSON.
var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]}}`,
	`{"error":{"code":404,"status":"NOT_FOUND","message":"failed to get task: task not found","details":[{"reason":"TASK_NOT_FOUND"}]}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"id":"t-1"}}`, `{"jsonrpc":"2.0","result":null}`,
	`{"JSONRPC":"2.0","result":1}`, `{"jsonrpc":"2.0","Result":1}`, `{"jsonrpc":"2.0","ERROR":{"code":-1}}`,
	`{"json\u0072pc":"2.0","result":1}`, `{"jsonrpc":"2\u002e0","result":1}`, "{\"jsonrpc\":\"2.0\xff\",\"result\":1}",
	`{"error":{"code":404,"ſtatus":"NOT_FOUND"}}`, `{"error":{"Code":404}}`, `{"error":{"code":404,"Message":"m","message":"n"}}`,
	`{"jsonrpc":"2.0","jsonrpc":"1.0","result":1}`, `{"jsonrpc":"2.0","error":{"code":-1},"error":{"message":"m"}}`,
	`{"error":{"code":404},"error":{"status":"S"}}`, `{"error":{"code":404,"code":500}}`, `{"jsonrpc":"2.0","result":1,"result":2}`,
	`{"jsonrpc":null,"result":1}`, `{"jsonrpc":"2.0","error":null}`, `{"error":null}`, `{"error":{"code":null}}`,
	`{"error":{"code":"404"}}`, `{"jsonrpc":"2.0","error":{"code":"-32001"}}`, `{"error":{"code":4.5e2,"status":7}}`,
	`{"jsonrpc":2,"result":1}`, `{"jsonrpc":"2.0","error":[]}`, `{"error":"x"}`, `{"error":{"message":{"a":1}}}`,
	` { "jsonrpc" : "2.0" , "error" : { "code" : -32601 , "data" : null } } `, `{"code":-32001,"message":"flat"}`,
	`{"jsonrpc":"2.0","id":"a\"b\\","error":{"code":-1,"message":"q\"\\\\\"","data":["\\"]}}`,
	`[]`, `null`, `"x"`, `{`, `{"error":{"code":404}`, ``, `{"a":{"error":{"code":1}},"jsonrpc":"2.0","result":[{"jsonrpc":1}]}`,
}

// FuzzEnvelopes holds the scan of a plain body to encoding/json's decoding of it: a
// body the scan fills an envelope from decodes without error into the same envelope.
func FuzzEnvelopes(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var rpc, rpcJSON jsonrpcDoc
		if rpc.scan(b) {
			if err := json.Unmarshal(b, &rpcJSON); err != nil || !reflect.DeepEqual(rpc, rpcJSON) {
				t.Fatalf("jsonrpc scan of %q = %+v %+v; encoding/json: %+v %+v, %v", b, rpc, rpc.Error, rpcJSON, rpcJSON.Error, err)
			}
		}
		var st, stJSON statusDoc
		if st.scan(b) {
			if err := json.Unmarshal(b, &stJSON); err != nil || !reflect.DeepEqual(st, stJSON) {
				t.Fatalf("status scan of %q = %+v %+v; encoding/json: %+v %+v, %v", b, st, st.Error, stJSON, stJSON.Error, err)
			}
		}
	})
}

// TestEnvelopesScan: the answers agents send are scanned, not handed to encoding/json
// (the fuzz target above only compares what the scan accepts, so a scan that accepted
// nothing would pass it).
func TestEnvelopesScan(t *testing.T) {
	var rpc jsonrpcDoc
	var st statusDoc
	if !rpc.scan([]byte(envelopeSeeds[0])) || rpc.Error == nil || rpc.Error.Code != "-32001" || len(rpc.Error.Data) == 0 {
		t.Errorf("JSON-RPC error not scanned: %+v", rpc)
	}
	if !st.scan([]byte(envelopeSeeds[1])) || st.Error == nil || st.Error.Code == nil || st.Error.Status != "NOT_FOUND" {
		t.Errorf("google.rpc.Status not scanned: %+v", st)
	}
	// Escaped quotes and runs of backslashes end no string early (the scan finds a
	// string's end with IndexByte).
	escaped := `{"jsonrpc":"2.0","id":"a\"b\\","error":{"code":-1,"message":"q\"\\\\\"","data":["\\"]}}`
	if !rpc.scan([]byte(escaped)) || rpc.Error == nil || rpc.Error.Message != `q"\\"` || string(rpc.Error.Data) != `["\\"]` {
		t.Errorf("escaped strings misread: %+v %+v", rpc, rpc.Error)
	}
	for _, s := range []string{`{"JSONRPC":"2.0","result":1}`, `{"jsonrpc":"2.0","error":{"code":-1},"error":{"message":"m"}}`, `{"error":{"code":"404"}}`} {
		if rpc.scan([]byte(s)) {
			t.Errorf("%s scanned; it is encoding/json's to decode", s)
		}
	}
}
