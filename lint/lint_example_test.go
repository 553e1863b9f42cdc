package lint_test

import (
	"fmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
)

// A v0.3-only card that declares two bindings at one URL: v1.0 clients find no
// interface in it, and a client gets the binding it picks only if that URL serves it.
func ExampleLint() {
	c, err := card.Parse([]byte(`{"name": "a", "description": "d", "version": "1", "capabilities": {},
		"defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
		"protocolVersion": "0.3.0", "url": "https://agent.example.com/a2a/rest", "preferredTransport": "JSONRPC",
		"additionalInterfaces": [{"url": "https://agent.example.com/a2a/rest", "transport": "HTTP+JSON"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	findings := lint.Lint(c)
	for _, f := range findings {
		fmt.Println(f.Severity, f.Code)
	}
	fmt.Println("errors:", card.HasErrors(findings))
	// Output:
	// warning required-field-missing
	// warning supported-interfaces-missing
	// warning url-conflicting-bindings
	// errors: false
}
