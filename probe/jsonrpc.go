package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

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
	if r, err := parseJSONRPCResponse(ans.body); err == nil {
		a.ev.Framing = a2a.TransportProtocolJSONRPC
		a.ev.JSONRPCCode, a.ev.Reason, a.message = r.Code, r.Reason, r.Message
		a.seen += ", " + r.String()
		return a
	}
	if s, ok := parseStatusBody(ans.body); ok {
		a.ev.Framing, a.ev.Reason = a2a.TransportProtocolHTTPJSON, s.Reason
		a.seen += ", HTTP+JSON " + s.String()
		return a
	}
	a.ev.Framing = wire.Unrecognised
	a.seen += ", " + quote(ans.body)
	return a
}

// jsonrpcResponse is a parsed JSON-RPC 2.0 response.
type jsonrpcResponse struct {
	// Result reports a success response.
	Result bool
	// Code, Message and Reason describe an error response.
	Code    int
	Message string
	Reason  string
}

func (r jsonrpcResponse) String() string {
	if r.Result {
		return "JSON-RPC result"
	}
	s := "JSON-RPC error " + strconv.Itoa(r.Code)
	if r.Reason != "" {
		s += " " + r.Reason
	}
	if r.Message != "" {
		s += " " + strconv.Quote(trim(r.Message, 100))
	}
	return s
}

// errNotJSONRPC is returned by parseJSONRPCResponse for anything that is not a
// JSON-RPC 2.0 response object.
var errNotJSONRPC = errors.New("not a JSON-RPC 2.0 response")

// parseJSONRPCResponse reads a JSON-RPC 2.0 response object: "jsonrpc":"2.0" and
// exactly one of result or error (with an integer code). The reason comes from an
// ErrorInfo in error.data (v1.0: an array of typed objects; v0.3: any value).
func parseJSONRPCResponse(b []byte) (jsonrpcResponse, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return jsonrpcResponse{}, errNotJSONRPC
	}
	var doc struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    json.Number     `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return jsonrpcResponse{}, fmt.Errorf("%w: %v", errNotJSONRPC, err)
	}
	if doc.JSONRPC != "2.0" {
		return jsonrpcResponse{}, fmt.Errorf("%w: jsonrpc is %q", errNotJSONRPC, doc.JSONRPC)
	}
	hasResult := len(doc.Result) > 0
	switch {
	case doc.Error != nil && !hasResult:
		code, err := strconv.ParseInt(doc.Error.Code.String(), 10, 32)
		if err != nil || code == 0 {
			return jsonrpcResponse{}, fmt.Errorf("%w: error code %q", errNotJSONRPC, doc.Error.Code)
		}
		return jsonrpcResponse{Code: int(code), Message: doc.Error.Message, Reason: reasonFrom(doc.Error.Data)}, nil
	case hasResult && doc.Error == nil:
		return jsonrpcResponse{Result: true}, nil
	}
	return jsonrpcResponse{}, fmt.Errorf("%w: needs exactly one of result and error", errNotJSONRPC)
}
