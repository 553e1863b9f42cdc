package server

import (
	"bytes"
	"encoding/json"
	"testing"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
)

// FuzzDecodePageToken: a ListTasks page token is client input; decoding never panics,
// and a token the store issued decodes to the same cursor.
func FuzzDecodePageToken(f *testing.F) {
	f.Add("")
	f.Add("not-a-token")
	f.Add(encodePageToken(pageCursor{id: "t_1"}))
	f.Add("MjAyNi0wMS0wMlQwMzowNDowNVpf") // a time and "_" but no id
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := decodePageToken(tok)
		if err != nil {
			return
		}
		again, err := decodePageToken(encodePageToken(c))
		if err != nil || !again.updated.Equal(c.updated) || again.id != c.id {
			t.Errorf("token %q: cursor %+v re-encodes to %+v, %v", tok, c, again, err)
		}
	})
}

// FuzzV03Body: a v0.3 HTTP+JSON body goes through the member renaming; it never panics,
// valid JSON stays valid, and a body that is not JSON is passed on unchanged.
func FuzzV03Body(f *testing.F) {
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi"}]}}`))
	f.Add([]byte(`{"message":{"message_id":"m","role":"ROLE_USER","parts":[{"text":"hi"}],"content":7},"configuration":{"history_length":0}}`))
	f.Add([]byte(`{"message":{"metadata":{"message_id":1},"parts":[{"data":{"data":{"task_id":2}}}]}}`))
	f.Add([]byte(`[[[[{"messageId":1,"role":{},"content":null}]]]]`))
	f.Add([]byte(`{"message":`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out := v03JSONNames(body, &a2apbv0.SendMessageRequest{})
		if !json.Valid(body) {
			if !bytes.Equal(out, body) {
				t.Errorf("v03JSONNames changed a body that is not JSON: %q to %q", body, out)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("v03JSONNames(%q) = %q, not JSON", body, out)
		}
	})
}
