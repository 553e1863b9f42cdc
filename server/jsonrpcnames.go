package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// JSON-RPC 1.0 params are ProtoJSON, whose parsers accept a field's proto name
// ("history_length") as well as its JSON name ("historyLength"). a2a-go's JSON-RPC handler
// reads JSON names only and ignores the rest, so a GetTask with "history_length" (the A2A
// TCK's JSON-RPC client sends it) returned the whole history. jsonrpcProtoNames rewrites
// the params of a 1.0 request to JSON names, guided by the method's request message.

// jsonrpcService is the A2A 1.0 gRPC service: a JSON-RPC 1.0 method is named as its
// method, and the method's input is the proto message the params are.
var jsonrpcService = a2apb.File_a2av1_proto.Services().ByName(protoreflect.FullName(grpcServiceV1).Name())

// jsonrpcProtoNames passes a JSON-RPC 1.0 request on with its params' proto field names
// rewritten to JSON names (unless both are given). The body is already bounded by the
// server's request limit; a body that is not one JSON-RPC request object with a known
// method and object params is passed on unchanged, for a2a-go to answer.
func jsonrpcProtoNames(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			// Too large or cut: a2a-go reads what was read and then the same error, and
			// answers it as it answers any unreadable request (-32700).
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(b), errReader{err}))
			next.ServeHTTP(w, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(jsonrpcJSONNames(b)))
		r.ContentLength = -1
		r.Header.Del("Content-Length")
		next.ServeHTTP(w, r)
	})
}

// jsonrpcJSONNames is the body b of a JSON-RPC 1.0 request with its params' proto field
// names rewritten to JSON names, or b itself when nothing is to be rewritten.
func jsonrpcJSONNames(b []byte) []byte {
	var req map[string]json.RawMessage
	if json.Unmarshal(b, &req) != nil {
		return b
	}
	for k := range req {
		switch k {
		case "jsonrpc", "id", "method", "params":
		default:
			// A case variant ("Method") is read by a2a-go's case-insensitive decoder; the
			// request is passed on as sent so that both read the same method.
			return b
		}
	}
	var method string
	if json.Unmarshal(req["method"], &method) != nil {
		return b
	}
	m := jsonrpcService.Methods().ByName(protoreflect.Name(method))
	if m == nil {
		return b
	}
	md := m.Input()
	var params any
	if json.Unmarshal(req["params"], &params) != nil || !renameFields(params, md, 0) {
		return b
	}
	p, err := json.Marshal(params)
	if err != nil {
		return b
	}
	req["params"] = p
	out, err := json.Marshal(req)
	if err != nil {
		return b
	}
	return out
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
