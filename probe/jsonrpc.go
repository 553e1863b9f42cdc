package probe

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// jsonrpcMethods are the method of each operation and protocol version, and the
// params member that carries the random task id ("" for none).
var jsonrpcMethods = map[operation]map[string][2]string{
	opGetTask:         {card.V1: {"GetTask", "id"}, card.V03: {"tasks/get", "id"}},
	opSubscribe:       {card.V1: {"SubscribeToTask", "id"}, card.V03: {"tasks/resubscribe", "id"}},
	opListPushConfigs: {card.V1: {"ListTaskPushNotificationConfigs", "taskId"}, card.V03: {"tasks/pushNotificationConfig/list", "id"}},
	opExtendedCard:    {card.V1: {"GetExtendedAgentCard", ""}, card.V03: {"agent/getAuthenticatedExtendedCard", ""}},
}

// jsonrpcRequest is the method and body of an operation's request for a task id: the
// id (0.3 and 1.0) or taskId member, and in 1.0 the tenant.
func jsonrpcRequest(op operation, version, taskID, tenant string) (string, []byte) {
	m := jsonrpcMethods[op][version]
	var pairs [4]string
	params := pairs[:0] // "id" and "taskId" sort before "tenant"
	if m[1] != "" {
		params = append(params, m[1], taskID)
	}
	if tenant != "" && version == card.V1 {
		params = append(params, "tenant", tenant)
	}
	return m[0], jsonrpcBody(taskID, m[0], params...)
}

// jsonrpcBody is the JSON-RPC request of method with params (member name, value
// pairs, in the order json.Marshal writes a map's keys), byte for byte what json.Marshal
// writes for that request as a map: the members in sorted order, the strings escaped
// as encoding/json escapes them (TestJSONRPCRequestBytes). It is appended by hand
// because json.Marshal's reflection over the map was a fifth of a lookup's own work.
func jsonrpcBody(id, method string, params ...string) []byte {
	b := make([]byte, 0, 64+len(id)+len(method)+8*len(params))
	b = append(b, `{"id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"jsonrpc":"2.0","method":`...)
	b = appendJSONString(b, method)
	b = append(b, `,"params":{`...)
	for k := 0; k+1 < len(params); k += 2 {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, params[k])
		b = append(b, ':')
		b = appendJSONString(b, params[k+1])
	}
	return append(b, "}}"...)
}

// appendJSONString appends s as encoding/json writes it: as is when every byte is
// printable ASCII that it does not escape, else through json.Marshal (which escapes
// quotes, backslashes, control characters, <, > and &, U+2028 and U+2029, and replaces
// invalid UTF-8).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// headerKey picks a JSON-RPC or HTTP+JSON request's headers: a stream's Accept,
// 1.0's A2A-Version.
type headerKey struct{ stream, v1 bool }

// jsonrpcHeaders are the headers of the JSON-RPC requests, built once and only read
// (doHTTP copies them into each request).
var jsonrpcHeaders = func() map[headerKey]http.Header {
	m := map[headerKey]http.Header{}
	for _, stream := range []bool{false, true} {
		for _, v1 := range []bool{false, true} {
			h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json"}}
			if stream {
				h.Set("Accept", "text/event-stream")
			}
			if v1 {
				h.Set(a2a.SvcParamVersion, card.V1)
			}
			m[headerKey{stream, v1}] = h
		}
	}
	return m
}()

// probeJSONRPC POSTs the request's operation for a random task id to the interface
// URL: GetTask (1.0) or tasks/get (0.3) for the lookup, where a served interface answers
// JSON-RPC error -32001 TaskNotFound; SubscribeToTask, ListTaskPushNotificationConfigs
// or GetExtendedAgentCard (0.3: tasks/resubscribe, tasks/pushNotificationConfig/list,
// agent/getAuthenticatedExtendedCard) for a capability. Of a stream only the first event
// is read.
func probeJSONRPC(ctx context.Context, req request) attempt {
	method, body := jsonrpcRequest(req.op, req.version, req.taskID, req.tenant)
	target := req.ep.httpURL(req.mode)
	ans := doHTTP(ctx, req, http.MethodPost, target, body, jsonrpcHeaders[headerKey{req.op == opSubscribe, req.version == card.V1}])

	a := attempt{sent: "JSON-RPC " + method + " POST " + target, tls: ans.tls, answered: ans.status != 0,
		certExpiry: ans.certExpiry}
	a.ev = wire.Evidence{Binding: a2a.TransportProtocolJSONRPC, Version: req.version}
	ans.evidence(&a.ev)
	a.seen = ans.seen()
	if ans.status == 0 {
		return a
	}
	r := wire.ReadAnswer(ans.contentType, ans.body)
	switch {
	case r.Framing == a2a.TransportProtocolJSONRPC:
		r.Fill(&a.ev)
		a.seen += ", " + r.String()
	case r.Framing == a2a.TransportProtocolHTTPJSON && !r.Flat:
		a.ev.Framing, a.ev.Reason, a.ev.Message = r.Framing, r.Reason, r.Message
		a.seen += ", HTTP+JSON " + r.String()
	default:
		a.ev.Framing = wire.Unrecognised
		a.seen += ", " + quote(ans.body)
	}
	return a
}
