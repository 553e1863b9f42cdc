package card_test

import (
	"errors"
	"fmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
)

// ExampleParse reads the card a2a-go v2.3.1's `a2a serve --echo` publishes: its null
// lists are read as empty and reported once each, as warnings.
func ExampleParse() {
	c, err := card.Parse([]byte(`{"name": "Echo Agent", "description": "d", "version": "1.0.0",
		"capabilities": {"streaming": true}, "defaultInputModes": null, "defaultOutputModes": null, "skills": null,
		"supportedInterfaces": [{"url": "http://127.0.0.1:8080", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Shape, c.Interfaces[0])
	for _, f := range lint.Lint(c) {
		fmt.Println(f.Severity, f.Code)
	}

	_, err = card.Parse([]byte(`{"status": "ok"}`))
	fmt.Println(errors.Is(err, card.ErrNotACard))
	// Output:
	// v1.0 HTTP+JSON 1.0 at http://127.0.0.1:8080
	// warning field-null
	// warning field-null
	// warning field-null
	// true
}
