package probe

import (
	"encoding/json"
	"testing"
)

// TestJSONRPCRequestBytes: the JSON-RPC request is written byte for byte as the map it
// replaced was, tenant escapes included.
func TestJSONRPCRequestBytes(t *testing.T) {
	for _, tenant := range []string{"", "t1", `a"b\c`, "<&>", "bad\xffutf8", "\u2028\x01", "locations/eu/projects/p"} {
		params := map[string]string{"id": "a2abind-probe-x"}
		if tenant != "" {
			params["tenant"] = tenant
		}
		got, err := json.Marshal(jsonrpcRequest{ID: "a2abind-probe-x", JSONRPC: "2.0", Method: "GetTask", Params: params})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "a2abind-probe-x", "method": "GetTask", "params": params})
		if string(got) != string(want) {
			t.Errorf("tenant %q: request %s, want %s", tenant, got, want)
		}
	}
}
