package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// jsonrpcMethods is the task lookup method of each protocol version.
var jsonrpcMethods = map[string]string{
	card.V1:  "GetTask",
	card.V03: "tasks/get",
}

// probeJSONRPC POSTs a GetTask (1.0) or tasks/get (0.3) for a random task id to the
// interface URL. A served interface answers JSON-RPC error -32001 TaskNotFound.
func probeJSONRPC(ctx context.Context, req request) attempt {
	method := jsonrpcMethods[req.version]
	params := map[string]string{"id": req.taskID}
	if req.tenant != "" && req.version == card.V1 {
		params["tenant"] = req.tenant
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.taskID, "method": method, "params": params})
	h := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json"},
	}
	if req.version == card.V1 {
		h.Set(a2a.SvcParamVersion, card.V1)
	}
	target := req.ep.httpURL(req.mode)
	ans := doHTTP(ctx, req, http.MethodPost, target, body, h)

	a := attempt{sent: fmt.Sprintf("JSON-RPC %s POST %s", method, target), tls: ans.tls, answered: ans.status != 0,
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
