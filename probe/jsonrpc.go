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

// jsonrpcRequest is a JSON-RPC request; its members are in the order json.Marshal
// writes a map's keys, as the probe's requests always had them.
type jsonrpcRequest struct {
	ID      string            `json:"id"`
	JSONRPC string            `json:"jsonrpc"`
	Method  string            `json:"method"`
	Params  map[string]string `json:"params"`
}

// probeJSONRPC POSTs the request's operation for a random task id to the interface
// URL: GetTask (1.0) or tasks/get (0.3) for the lookup, where a served interface answers
// JSON-RPC error -32001 TaskNotFound; SubscribeToTask, ListTaskPushNotificationConfigs
// or GetExtendedAgentCard (0.3: tasks/resubscribe, tasks/pushNotificationConfig/list,
// agent/getAuthenticatedExtendedCard) for a capability. Of a stream only the first event
// is read.
func probeJSONRPC(ctx context.Context, req request) attempt {
	m := jsonrpcMethods[req.op][req.version]
	method := m[0]
	params := map[string]string{}
	if m[1] != "" {
		params[m[1]] = req.taskID
	}
	if req.tenant != "" && req.version == card.V1 {
		params["tenant"] = req.tenant
	}
	body, _ := json.Marshal(jsonrpcRequest{ID: req.taskID, JSONRPC: "2.0", Method: method, Params: params})
	h := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json"},
	}
	if req.op == opSubscribe {
		h.Set("Accept", "text/event-stream")
	}
	if req.version == card.V1 {
		h.Set(a2a.SvcParamVersion, card.V1)
	}
	target := req.ep.httpURL(req.mode)
	ans := doHTTP(ctx, req, http.MethodPost, target, body, h)

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
