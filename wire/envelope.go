package wire

import (
	"bytes"
	"encoding/json"
)

// The envelopes of the two error shapes ParseJSONRPC and ParseStatus read. encoding/json
// decodes into them; for a plain body (the answers every agent sends) scan fills them
// as that decoding would, without its reflection: FuzzEnvelopes holds the two to the
// same documents.
type (
	jsonrpcDoc struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *jsonrpcError   `json:"error"`
	}
	jsonrpcError struct {
		Code    json.Number     `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	statusDoc struct {
		Error *statusError `json:"error"`
	}
	statusError struct {
		Code    *json.Number    `json:"code"`
		Status  string          `json:"status"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	}
)

// scan fills doc from a plain JSON-RPC response body and reports whether it did; for
// any other body (see plainMembers) the caller decodes it with encoding/json.
func (doc *jsonrpcDoc) scan(b []byte) bool {
	var top, e [3][]byte
	if !plainMembers(b, []string{"jsonrpc", "result", "error"}, top[:]) {
		return false
	}
	if top[2] != nil && !plainMembers(top[2], []string{"code", "message", "data"}, e[:]) {
		return false
	}
	var d jsonrpcDoc
	if top[0] != nil && !plainString(top[0], &d.JSONRPC) {
		return false
	}
	d.Result = top[1]
	if top[2] != nil {
		d.Error = &jsonrpcError{Data: e[2]}
		if e[0] != nil && !plainNumber(e[0]) || e[1] != nil && !plainString(e[1], &d.Error.Message) {
			return false
		}
		d.Error.Code = json.Number(e[0])
	}
	*doc = d
	return true
}

// scan fills doc from a plain google.rpc.Status body and reports whether it did; for
// any other body (see plainMembers) the caller decodes it with encoding/json.
func (doc *statusDoc) scan(b []byte) bool {
	var top [1][]byte
	var e [4][]byte
	if !plainMembers(b, []string{"error"}, top[:]) {
		return false
	}
	if top[0] != nil && !plainMembers(top[0], []string{"code", "status", "message", "details"}, e[:]) {
		return false
	}
	var d statusDoc
	if top[0] != nil {
		d.Error = &statusError{Details: e[3]}
		if e[0] != nil {
			if !plainNumber(e[0]) {
				return false
			}
			n := json.Number(e[0])
			d.Error.Code = &n
		}
		if e[1] != nil && !plainString(e[1], &d.Error.Status) || e[2] != nil && !plainString(e[2], &d.Error.Message) {
			return false
		}
	}
	*doc = d
	return true
}

// plainMembers puts the value of each of an object's members named in names into vals
// (nil for a member not there), and reports whether the object is plain: an object
// (one valid JSON object), none of names given twice, and no other member whose name (its text, as
// encoding/json reads it) matches one of names but for case, as encoding/json matches
// struct fields. Other members are skipped.
func plainMembers(b []byte, names []string, vals [][]byte) bool {
	plain := true
	ok := members(b, func(name, v []byte) {
		for n, want := range names {
			switch {
			case string(name) == want:
				if vals[n] != nil {
					plain = false // a duplicate: encoding/json merges or replaces
				}
				vals[n] = v
			case bytes.EqualFold(name, []byte(want)):
				plain = false
			}
		}
	})
	return ok && plain
}

// plainString decodes a JSON string value into out, as encoding/json does; false for
// any other value (null included: it leaves a string field as it was).
func plainString(v []byte, out *string) bool {
	t, ok := text(v)
	if ok {
		*out = known(t)
	}
	return ok
}

// known is string(t), without a copy for the strings most answers hold.
func known(t []byte) string {
	switch string(t) {
	case "2.0":
		return "2.0"
	case "NOT_FOUND":
		return "NOT_FOUND"
	case "TASK_NOT_FOUND":
		return "TASK_NOT_FOUND"
	case "":
		return ""
	}
	return string(t)
}

// plainNumber reports whether v is a JSON number literal (encoding/json keeps it as a
// json.Number as written).
func plainNumber(v []byte) bool { return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') }
