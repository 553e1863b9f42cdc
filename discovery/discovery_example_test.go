package discovery_test

import (
	"fmt"

	"github.com/a2abind/a2abind/discovery"
)

// Parse reads an AI Catalog; Catalog would fetch it and follow its nested catalogs.
func ExampleParse() {
	doc, err := discovery.Parse([]byte(`{"specVersion": "1.0", "entries": [
		{"identifier": "urn:agent:billing", "displayName": "Billing", "type": "application/a2a-agent-card+json",
		 "url": "https://billing.example.com"},
		{"identifier": "urn:tools", "type": "application/mcp-server+json", "url": "https://tools.example.com"}]}`),
		"application/json", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range doc.Entries {
		fmt.Println(e.Identifier, e.Type, e.URL)
	}
	// Output:
	// urn:agent:billing application/a2a-agent-card+json https://billing.example.com
	// urn:tools application/mcp-server+json https://tools.example.com
}
