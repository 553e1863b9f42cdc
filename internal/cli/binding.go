package cli

import (
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// bindingNames is what a binding may be called on the command line: the specification's
// names, any case, and "rest", the a2a-go CLI's word for HTTP+JSON.
const bindingNames = "JSONRPC, GRPC or HTTP+JSON (or rest)"

// parseBinding reads a binding named on the command line (see bindingNames). It is the
// one place the CLI accepts a binding name.
func parseBinding(name string) (a2a.TransportProtocol, error) {
	if strings.EqualFold(strings.TrimSpace(name), "rest") {
		return a2a.TransportProtocolHTTPJSON, nil
	}
	b, ok := addr.CanonicalBinding(a2a.TransportProtocol(strings.TrimSpace(name)))
	if !ok {
		return "", fmt.Errorf("binding %q: want %s", name, bindingNames)
	}
	return b, nil
}

// undeclared reports whether an interface is one the card does not declare (send
// --use): it has no Source in the document, and the output says so.
func undeclared(i card.Interface) bool { return i.Source == (card.Source{}) }

// parseUse reads a send --use value, BINDING@VERSION=URL (JSONRPC@0.3=http://host/,
// rest@1.0=http://host, GRPC@1.0=host:port), into an interface the card does not declare.
func parseUse(v string) (card.Interface, error) {
	spec, url, ok := strings.Cut(v, "=")
	name, version, ok2 := strings.Cut(spec, "@")
	if !ok || !ok2 || url == "" {
		return card.Interface{}, fmt.Errorf("--use %q: want BINDING@VERSION=URL, e.g. JSONRPC@0.3=http://127.0.0.1:8080/", v)
	}
	b, err := parseBinding(name)
	if err != nil {
		return card.Interface{}, fmt.Errorf("--use %q: %w", v, err)
	}
	version = card.NormalizeVersion(version)
	if version != card.V1 && version != card.V03 {
		return card.Interface{}, fmt.Errorf("--use %q: version %q: want %s or %s", v, version, card.V1, card.V03)
	}
	if _, err := addr.ParseAddress(url, b); err != nil {
		return card.Interface{}, fmt.Errorf("--use %q: %w", v, err)
	}
	return card.Interface{URL: url, Binding: b, ProtocolVersion: version}, nil // no Source: undeclared
}
