package restv03

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	a2alegacy "github.com/a2aproject/a2a-go/a2a"
	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/a2apb/pbconv"
	"google.golang.org/protobuf/proto"
)

// a2a-go v2.3.1 (and earlier v2 releases), which agents in the field run, serve and
// call v0.3 HTTP+JSON in a dialect of their own: the same routes at {url} itself (no
// /v1), subscribe by POST, and bodies that are the legacy v0.3 JSON types (as in
// JSON-RPC 0.3: "kind", parts [{"kind":"text","text":...}]) with every object key
// written in snake_case ("message_id", "context_id"). v2.4.0 dropped that dialect, so
// MarshalLegacy and UnmarshalLegacy rebuild it from a2a-go's own legacy types and
// conversions (github.com/a2aproject/a2a-go/a2a and a2apb/pbconv), with the key rewrite
// v2.3.1's a2acompat/a2av0/json_transform.go applies.

// MarshalLegacy writes the body of a request in a2a-go v2.3.1's dialect. Only a
// SendMessageRequest has a body there.
func MarshalLegacy(m proto.Message) ([]byte, error) {
	r, ok := m.(*a2apbv0.SendMessageRequest)
	if !ok {
		return nil, fmt.Errorf("a %T has no body in a2a-go's v0.3 HTTP+JSON", m)
	}
	params, err := pbconv.FromProtoSendMessageRequest(r)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return rewriteKeys(b, camelToSnake)
}

// UnmarshalLegacy reads an answer (a SendMessageResponse, a StreamResponse event or a
// Task) in a2a-go v2.3.1's dialect into m.
func UnmarshalLegacy(b []byte, m proto.Message) error {
	b, err := rewriteKeys(b, SnakeToCamel)
	if err != nil {
		return err
	}
	var p proto.Message
	switch m.(type) {
	case *a2apbv0.SendMessageResponse:
		ev, err := a2alegacy.UnmarshalEventJSON(b)
		if err != nil {
			return err
		}
		res, ok := ev.(a2alegacy.SendMessageResult)
		if !ok {
			return fmt.Errorf("the answer is a %T, not a task or a message", ev)
		}
		p, err = pbconv.ToProtoSendMessageResponse(res)
		if err != nil {
			return err
		}
	case *a2apbv0.StreamResponse:
		ev, err := a2alegacy.UnmarshalEventJSON(b)
		if err != nil {
			return err
		}
		if p, err = pbconv.ToProtoStreamResponse(ev); err != nil {
			return err
		}
	case *a2apbv0.Task:
		var t a2alegacy.Task
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
		if p, err = pbconv.ToProtoTask(&t); err != nil {
			return err
		}
	default:
		return fmt.Errorf("a2abind does not read a %T in a2a-go's v0.3 HTTP+JSON", m)
	}
	proto.Reset(m)
	proto.Merge(m, p)
	return nil
}

// rewriteKeys rewrites every object key of the JSON value b with fn.
func rewriteKeys(b []byte, fn func(string) string) ([]byte, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errors.New("the body is null")
	}
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(v))
			for k, x := range v {
				out[fn(k)] = walk(x)
			}
			return out
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
		}
		return v
	}
	return json.Marshal(walk(v))
}

// camelToSnake is "messageId" → "message_id", "URLField" → "url_field", as a2a-go
// v2.3.1 writes keys.
func camelToSnake(s string) string {
	runes := []rune(s)
	var b strings.Builder
	for i, r := range runes {
		if !unicode.IsUpper(r) {
			b.WriteRune(r)
			continue
		}
		if i > 0 {
			prev := runes[i-1]
			nextIsLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(prev) || unicode.IsUpper(prev) && nextIsLower {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// SnakeToCamel is "message_id" → "messageId": how a2a-go v2.3.1 reads keys, and how the
// server reads a v0.3 query parameter written in proto field names.
func SnakeToCamel(s string) string {
	parts := strings.Split(s, "_")
	if len(parts) <= 1 {
		return s
	}
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		if p == "" {
			continue
		}
		r := []rune(p)
		b.WriteRune(unicode.ToUpper(r[0]))
		b.WriteString(string(r[1:]))
	}
	return b.String()
}
