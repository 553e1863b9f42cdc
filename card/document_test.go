package card_test

import (
	"bytes"
	"testing"

	"github.com/a2abind/a2abind/card"
)

func TestDocumentIsTheBytesRead(t *testing.T) {
	raw := []byte(`{"name":"x","x-unknown":{"kept":true},"url":"http://127.0.0.1:1","preferredTransport":"JSONRPC"}`)
	for _, tt := range []struct {
		name string
		in   []byte
	}{{"plain", raw}, {"with BOM", append([]byte{0xEF, 0xBB, 0xBF}, raw...)}} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := card.Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := c.Document()
			if !bytes.Equal(got, raw) {
				t.Fatalf("Document() = %s, want %s", got, raw)
			}
			got[0] = 'X' // a copy: the card is not changed through it
			if !bytes.Equal(c.Document(), raw) {
				t.Error("changing the returned slice changed the card's document")
			}
		})
	}
	if (&card.Card{}).Document() != nil {
		t.Error("a hand-built card has a document")
	}
}
