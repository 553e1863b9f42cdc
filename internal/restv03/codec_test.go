package restv03

import (
	"bytes"
	"encoding/json"
	"testing"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
)

// FuzzV03Body: a v0.3 HTTP+JSON body goes through the v0.3.0 message-shape bridge and
// protojson; neither panics, and the bridge keeps valid JSON valid.
func FuzzV03Body(f *testing.F) {
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi"}]}}`))
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}],"content":7}}`))
	f.Add([]byte(`[[[[{"messageId":1,"role":{},"content":null}]]]]`))
	f.Add([]byte(`{"message":`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := messageParts(body, "content", "parts")
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("messageParts(%q) = %q, not JSON", body, out)
		}
		if !bytes.Equal(out, body) && !bytes.Contains(out, []byte(`"parts"`)) {
			t.Errorf("messageParts changed %q to %q without adding parts", body, out)
		}
		_ = Unmarshal(body, &a2apbv0.SendMessageRequest{})
	})
}

// TestRoundTrip: a message written by Marshal carries its parts under both names, and
// Unmarshal reads a v0.3.0 body whose parts are under "content".
func TestRoundTrip(t *testing.T) {
	req := &a2apbv0.SendMessageRequest{Request: &a2apbv0.Message{MessageId: "m", Role: a2apbv0.Role_ROLE_USER,
		Parts: []*a2apbv0.Part{{Part: &a2apbv0.Part_Text{Text: "hi"}}}}}
	b, err := Marshal(req)
	if err != nil || !bytes.Contains(b, []byte(`"content"`)) || !bytes.Contains(b, []byte(`"parts"`)) {
		t.Fatalf("Marshal = %s, %v; want parts under content and parts", b, err)
	}
	var back a2apbv0.SendMessageRequest
	if err := Unmarshal([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"text":"hi"}]}}`), &back); err != nil {
		t.Fatal(err)
	}
	if got := back.GetRequest().GetParts(); len(got) != 1 || got[0].GetText() != "hi" {
		t.Errorf("Unmarshal read parts %v, want one text part", got)
	}
}
