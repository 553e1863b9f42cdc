package discovery_test

import (
	"errors"
	"testing"

	"github.com/a2abind/a2abind/discovery"
)

// FuzzParse: whatever a catalog document holds, Parse returns entries within the bound
// or an ErrCatalog error, and never panics.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"specVersion": "1.0", "entries": [{"identifier": "urn:a", "displayName": "A", "type": "application/a2a-agent-card+json", "url": "https://a.example.com"}]}`,
		`{"specVersion": "1.0", "entries": [{"identifier": "i", "type": "application/a2a-agent-card+json", "data": {"name": "x", "supportedInterfaces": []}}]}`,
		`{"entries": [{"identifier": "n", "type": "application/ai-catalog+json", "url": "https://c.example.com/sub.json"}]}`,
		`{"linkset": [{"anchor": "https://example.com/.well-known/api-catalog", "item": [{"href": "https://a.example.com/.well-known/agent-card.json", "type": "application/a2a-agent-card+json", "title": "A"}], "api-catalog": [{"href": "https://other.example.com/.well-known/api-catalog"}]}]}`,
		`{"entries": [{"url": "a", "URL": "b"}]}`,
		`{"linkset": [{"item": [], "ITEM": []}]}`,
		`{"entries": [], "linkset": []}`,
		`{"specVersion": "2.0", "entries": []}`,
		`[1, 2]`,
		"\xef\xbb\xbf{\"entries\": null}",
	} {
		f.Add(seed, "")
		f.Add(seed, "application/linkset+json")
	}
	f.Fuzz(func(t *testing.T, doc, ctype string) {
		d, err := discovery.Parse([]byte(doc), ctype, 50)
		if err != nil {
			if !errors.Is(err, discovery.ErrCatalog) {
				t.Fatalf("error %v does not wrap ErrCatalog", err)
			}
			return
		}
		if len(d.Entries) > 50 {
			t.Fatalf("%d entries, over the bound of 50", len(d.Entries))
		}
		if d.Type != discovery.TypeAICatalog && d.Type != discovery.TypeLinkset {
			t.Fatalf("document type %q", d.Type)
		}
	})
}
