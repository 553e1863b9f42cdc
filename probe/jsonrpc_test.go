package probe

import (
	"encoding/json"
	"testing"
)

// wantJSONRPCBody is the request as json.Marshal writes it from a map, the form the
// probe's requests always had.
func wantJSONRPCBody(id, method, member, tenant string) []byte {
	params := map[string]string{}
	if member != "" {
		params[member] = id
	}
	if tenant != "" {
		params["tenant"] = tenant
	}
	want, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return want
}

func gotJSONRPCBody(id, method, member, tenant string) []byte {
	var params []string
	if member != "" {
		params = append(params, member, id)
	}
	if tenant != "" {
		params = append(params, "tenant", tenant)
	}
	return jsonrpcBody(id, method, params...)
}

// TestJSONRPCRequestBytes: the JSON-RPC request is written byte for byte as the map it
// replaced was, for every method and params member the probe sends, escapes included.
func TestJSONRPCRequestBytes(t *testing.T) {
	for _, tenant := range []string{"", "t1", `a"b\c`, "<&>", "bad\xffutf8", "\u2028\x01", "locations/eu/projects/p", "é\x7f"} {
		for _, ms := range jsonrpcMethods {
			for _, m := range ms {
				got, want := gotJSONRPCBody("a2abind-probe-x", m[0], m[1], tenant), wantJSONRPCBody("a2abind-probe-x", m[0], m[1], tenant)
				if string(got) != string(want) {
					t.Errorf("%s, tenant %q: request %s, want %s", m[0], tenant, got, want)
				}
			}
		}
	}
}

// FuzzJSONRPCBody holds the hand-written request to json.Marshal's for any id, method
// and tenant.
func FuzzJSONRPCBody(f *testing.F) {
	f.Add("a2abind-probe-0123", "GetTask", "id", "")
	f.Add("x", "ListTaskPushNotificationConfigs", "taskId", "t<1>")
	f.Add("\u2028", "agent/getAuthenticatedExtendedCard", "", "bad\xff")
	f.Fuzz(func(t *testing.T, id, method, member, tenant string) {
		if member != "" && member != "id" && member != "taskId" {
			member = "id" // the members the probe sends; all sort before "tenant"
		}
		got, want := gotJSONRPCBody(id, method, member, tenant), wantJSONRPCBody(id, method, member, tenant)
		if string(got) != string(want) {
			t.Fatalf("request %s, want %s", got, want)
		}
	})
}
