package probe

import (
	"encoding/json"
	"testing"

	"github.com/a2abind/a2abind/card"
)

// checkJSONRPCRequests holds the request of every operation and version, for id and
// tenant, to the one json.Marshal writes from a map, the form the probe's requests
// always had: the params member of the operation, and in 1.0 the tenant.
func checkJSONRPCRequests(t *testing.T, id, tenant string) {
	t.Helper()
	for op, ms := range jsonrpcMethods {
		for version, m := range ms {
			params := map[string]string{}
			if m[1] != "" {
				params[m[1]] = id
			}
			if tenant != "" && version == card.V1 {
				params["tenant"] = tenant
			}
			want, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": m[0], "params": params})
			method, got := jsonrpcRequest(op, version, id, tenant)
			if method != m[0] || string(got) != string(want) {
				t.Errorf("%s %s, tenant %q: %s request %s, want %s %s", m[0], version, tenant, method, got, m[0], want)
			}
		}
	}
}

// TestJSONRPCRequestBytes: the JSON-RPC request is written byte for byte as the map it
// replaced was, for every method and params member the probe sends, escapes included.
func TestJSONRPCRequestBytes(t *testing.T) {
	for _, tenant := range []string{"", "t1", `a"b\c`, "<&>", "bad\xffutf8", "\u2028\x01", "locations/eu/projects/p", "é\x7f", "a<b", "a>b", "a&b", "q\"", "\x1f", "\u2029"} {
		checkJSONRPCRequests(t, "a2abind-probe-x", tenant)
	}
}

// FuzzJSONRPCBody holds the hand-written requests to json.Marshal's for any task id and
// tenant.
func FuzzJSONRPCBody(f *testing.F) {
	f.Add("a2abind-probe-0123", "")
	f.Add("x", "t<1>")
	f.Add("\u2028", "bad\xff")
	f.Fuzz(checkJSONRPCRequests)
}
