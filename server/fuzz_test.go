package server

import (
	"testing"
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
