package card_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// addressParsers are the standard-library functions that take an address apart. Outside
// packages addr and card, code reads addresses with addr.ParseAddress and the Address methods
// (SameHost, Loopback, Wildcard, IP, GoGRPCAccepts, Rewrite), so that one model decides
// what an address means.
var addressParsers = map[string][]string{
	"net/url":   {"Parse", "ParseRequestURI"},
	"net":       {"SplitHostPort", "ParseIP", "ParseCIDR", "LookupPort"},
	"net/netip": {"ParseAddr", "ParseAddrPort", "ParsePrefix", "MustParseAddr", "MustParseAddrPort", "MustParsePrefix"},
}

// addressParserAllowed lists the files outside card that may call one anyway, each with
// the reason. Keep it short: a new entry needs a reason the address model cannot serve.
var addressParserAllowed = map[string]string{
	// The redaction home finds user:password and the query of any URL text, those the
	// address model refuses included, and sits below card: telemetry, which card
	// imports, hides secrets through it.
	"internal/redact/redact.go": "URL credentials and secret query values, for redaction",
	// A custom binding is named by a URI, not an address: lint asks only whether it is one.
	"lint/helpers.go": "whether a custom binding name is a URI",
}

// TestAddressModelHasOneHome fails when non-test code outside packages addr and card calls an
// address parser of the standard library (apart from addressParserAllowed), so that a
// second address model cannot grow back.
func TestAddressModelHasOneHome(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	var found []string
	moduleGoFiles(t, func(rel string, src []byte) {
		if strings.HasPrefix(rel, "addr/") || strings.HasPrefix(rel, "card/") {
			return
		}
		for _, call := range addressParserCalls(t, rel, src) {
			if _, ok := addressParserAllowed[rel]; ok {
				used[rel] = true
				continue
			}
			found = append(found, rel+": "+call)
		}
	})
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("%s: read the address with addr.ParseAddress and addr.Address's methods (or add the file to addressParserAllowed, saying why)", f)
	}
	for rel := range addressParserAllowed {
		if !used[rel] {
			t.Errorf("addressParserAllowed lists %s, which no longer parses addresses: remove the entry", rel)
		}
	}
}

// addressParserCalls lists the address-parser calls of one Go file ("url.Parse at line
// 12"), whatever name the package is imported under.
func addressParserCalls(t *testing.T, path string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := addressParsers[p]; !ok {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		p, ok := names[id.Name]
		if !ok {
			return true
		}
		for _, fn := range addressParsers[p] {
			if sel.Sel.Name == fn {
				out = append(out, id.Name+"."+fn+" at line "+strconv.Itoa(fset.Position(sel.Pos()).Line))
			}
		}
		return true
	})
	return out
}
