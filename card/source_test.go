package card_test

import (
	"encoding/json"
	"testing"

	"github.com/a2abind/a2abind/card"
)

// TestSourceText: a typed Source keeps the JSON "source" strings of the contract, and
// reads them back; anything else is an error.
func TestSourceText(t *testing.T) {
	t.Parallel()
	for src, text := range map[card.Source]string{
		card.Supported(0):   "supportedInterfaces[0]",
		card.Supported(12):  "supportedInterfaces[12]",
		card.Supported(15):  "supportedInterfaces[15]", // the last of the names made once
		card.Supported(16):  "supportedInterfaces[16]", // the first made on demand
		card.Supported(1e4): "supportedInterfaces[10000]",
		card.Additional(3):  "additionalInterfaces[3]",
		card.Additional(15): "additionalInterfaces[15]",
		card.Additional(16): "additionalInterfaces[16]",
		card.SourcePrimary:  "url+preferredTransport",
		{}:                  "",
	} {
		b, err := json.Marshal(card.Interface{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			Source string `json:"source"`
		}
		if err := json.Unmarshal(b, &back); err != nil || back.Source != text {
			t.Errorf("%+v marshals to source %q (%v), want %q", src, back.Source, err, text)
		}
		var i card.Interface
		if err := json.Unmarshal(b, &i); err != nil || i.Source != src {
			t.Errorf("%s reads back as %+v, %v", b, i.Source, err)
		}
	}
	for _, bad := range []string{"supportedInterfaces[-1]", "supportedInterfaces[01]", "supportedInterfaces[1", "url", "additionalInterfaces[]x", "SupportedInterfaces[0]"} {
		if s, err := card.ParseSource(bad); err == nil {
			t.Errorf("ParseSource(%q) = %+v, want an error", bad, s)
		}
	}
}
