// Package restv03 is the body codec of the v0.3 specification's HTTP+JSON binding: the
// gRPC transcoding of a2a.v1.A2AService (proto JSON at {url}/v1/message:send, ...), as
// @a2a-js/sdk 0.3 serves and calls it. The server's /v1 routes and the delegate's
// client for them both use it, so the two read and write one dialect.
package restv03

import (
	"encoding/json"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Prefix is the path under an interface's URL where the v0.3 specification puts its
// HTTP+JSON routes ({url}/v1/message:send, {url}/v1/tasks/{id}, ...).
const Prefix = "/v1"

var (
	unmarshal = protojson.UnmarshalOptions{DiscardUnknown: true}
	marshal   = protojson.MarshalOptions{}
)

// The v0.3.0 proto names a message's parts "content" (field 5 of a2a.v1.Message); the
// later v0.3 proto a2a-go compiles names them "parts". Marshal writes both; Unmarshal
// reads "content" as "parts" where "parts" is absent.

// Marshal writes m as proto JSON with each message's parts also under "content".
func Marshal(m proto.Message) ([]byte, error) {
	b, err := marshal.Marshal(m)
	if err != nil {
		return nil, err
	}
	return messageParts(b, "parts", "content")
}

// Unmarshal reads proto JSON into m, unknown members ignored and each message's
// "content" read as its parts.
func Unmarshal(b []byte, m proto.Message) error {
	b, err := messageParts(b, "content", "parts")
	if err != nil {
		return err
	}
	return unmarshal.Unmarshal(b, m)
}

// ErrorBody is an error answer of the binding: the A2A error code (the JSON-RPC code)
// and message, as a2a-js 0.3 writes and reads it; Reason is the google.rpc.ErrorInfo
// reason where a2abind's server knows it.
type ErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Reason  string `json:"reason,omitempty"`
}

// messageParts copies, in every JSON object that is a message (it has "messageId" and
// "role"), the value of key from to key to unless to is already there.
func messageParts(b []byte, from, to string) ([]byte, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	changed := false
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			_, isMsg := v["messageId"]
			_, hasRole := v["role"]
			if p, ok := v[from]; ok && isMsg && hasRole {
				if _, taken := v[to]; !taken {
					v[to] = p
					changed = true
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	if !changed {
		return b, nil
	}
	return json.Marshal(v)
}
