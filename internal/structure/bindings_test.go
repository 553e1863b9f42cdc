package structure_test

import (
	"go/ast"
	"go/token"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// bindingValue is a binding written out: a2a's constant or its string.
var bindingValue = regexp.MustCompile(`^(a2a\.TransportProtocol\w+|string\(a2a\.TransportProtocol\w+\)|"(GRPC|JSONRPC|HTTP\+JSON)")$`)

// bindingCompareAllowed are the comparisons of a binding with a value that are a rule
// of that binding, not a choice of which code serves it, keyed by the file's base name
// (it survives moves between packages) and the comparison, each with the reason.
var bindingCompareAllowed = map[string]string{
	"address.go: b == a2a.TransportProtocolGRPC":                    "the address model: a gRPC address is host:port",
	"lint.go: canonical(b) == a2a.TransportProtocolGRPC":            "a lint rule about gRPC addresses",
	"endpoint.go: b == a2a.TransportProtocolGRPC":                   "the address model: grpc-go's target syntax",
	"accesslog.go: binding == string(a2a.TransportProtocolGRPC)":    "the access log names the gRPC method, not dispatch",
	"accesslog.go: binding == string(a2a.TransportProtocolJSONRPC)": "the access log reads the JSON-RPC method, not dispatch",
	// Rules of one binding's wire behaviour.
	"classify.go: ev.Binding == a2a.TransportProtocolHTTPJSON":            "wire evidence: an HTTP+JSON status",
	"mapping.go: ev.Binding == a2a.TransportProtocolHTTPJSON":             "wire evidence: the HTTP+JSON error table",
	"mapping.go: ev.Binding == a2a.TransportProtocolJSONRPC":              "wire evidence: the JSON-RPC error table",
	"invariant.go: canonical != \"GRPC\"":                                 "the address form a gRPC interface must have (host:port)",
	"invariant.go: canonical == \"GRPC\"":                                 "the address form a gRPC interface must have (host:port)",
	"way.go: iface.Binding == a2a.TransportProtocolHTTPJSON":              "v0.3 HTTP+JSON's two route layouts: how to call it",
	"way.go: iface.Binding == a2a.TransportProtocolGRPC":                  "a bare gRPC host:port may use TLS or not",
	"naming.go: a.Interface.Binding != a2a.TransportProtocolGRPC":         "a bare gRPC host:port may use TLS or not",
	"clients.go: chosen.Binding == a2a.TransportProtocolGRPC":             "a client profile: how grpc.NewClient reads the address",
	"clients.go: i.Binding == a2a.TransportProtocolJSONRPC":               "a client profile: the client speaks JSON-RPC only",
	"clients.go: r.Interface.Binding != a2a.TransportProtocolHTTPJSON":    "v0.3 HTTP+JSON's two route layouts",
	"clients.go: b == a2a.TransportProtocolHTTPJSON":                      "v0.3 HTTP+JSON's two route layouts",
	"clients_a2ago.go: ch.iface.Binding != a2a.TransportProtocolHTTPJSON": "v0.3 HTTP+JSON's two route layouts",
	"engine.go: b == a2a.TransportProtocolJSONRPC":                        "HTTP bindings share an origin's lane",
	"engine.go: b == a2a.TransportProtocolHTTPJSON":                       "HTTP bindings share an origin's lane",
	"probe.go: b == a2a.TransportProtocolGRPC":                            "gRPC has one endpoint per address, no path variants",
	"mediatype.go: binding != a2a.TransportProtocolHTTPJSON":              "a note about a2a-go's HTTP+JSON client",
	"hints.go: s.Binding == a2a.TransportProtocolHTTPJSON":                "the a2a CLI's name for HTTP+JSON (rest)",
	"demo.go: i.Binding == a2a.TransportProtocolGRPC":                     "the demo picks its scenes' interfaces",
	"demo.go: i.Binding == a2a.TransportProtocolJSONRPC":                  "the demo picks its scenes' interfaces",
	"demo.go: binding == a2a.TransportProtocolGRPC":                       "the demo picks its scenes' interfaces",
	"demo.go: be.Interface.Binding == a2a.TransportProtocolGRPC":          "the demo picks its scenes' interfaces",
}

// TestBindingsComparedNowhere fails when non-test code compares a binding with one
// binding's value (rt.binding == a2a.TransportProtocolJSONRPC, b != "GRPC"): which
// code serves a binding comes from a table (internal/bindtable, probe/bindings.go,
// delegate/bindings.go), so a new binding is one entry rather than one more branch in
// every such comparison. Reading an answer's framing (ev.Framing == ...) is evidence,
// not dispatch, and is not counted.
func TestBindingsComparedNowhere(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	var found []string
	moduleFiles(t, false, func(f goFile) {
		ast.Inspect(f.ast, func(n ast.Node) bool {
			be, ok := n.(*ast.BinaryExpr)
			if !ok || (be.Op != token.EQL && be.Op != token.NEQ) {
				return true
			}
			if !bindingValue.MatchString(f.text(be.X)) && !bindingValue.MatchString(f.text(be.Y)) {
				return true
			}
			if strings.HasSuffix(f.text(be.X), "Framing") || strings.HasSuffix(f.text(be.Y), "Framing") {
				return true
			}
			base := f.rel[strings.LastIndex(f.rel, "/")+1:]
			key := base + ": " + f.text(be)
			if _, ok := bindingCompareAllowed[key]; ok {
				used[key] = true
				return true
			}
			found = append(found, f.position(be)+": "+f.text(be))
			return true
		})
	})
	sort.Strings(found)
	for _, s := range found {
		t.Errorf("%s compares a binding with one binding's value: take what differs from a table keyed by binding (or add %q to bindingCompareAllowed, saying why it is not dispatch)", s, s)
	}
	for key := range bindingCompareAllowed {
		if !used[key] {
			t.Errorf("bindingCompareAllowed lists %q, which no file has now: remove the entry", key)
		}
	}
}
