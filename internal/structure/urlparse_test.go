package structure_test

import (
	"go/ast"
	"sort"
	"strings"
	"testing"
)

// urlParsers are the names that take a URL apart: net/url's functions, and url.URL's
// methods Parse (new(url.URL).Parse, (&url.URL{}).Parse, u.Parse, r.URL.Parse).
var urlParsers = map[string]bool{"Parse": true, "ParseRequestURI": true}

// addressHomes are the directories of the address model (card now, addr once split),
// where URLs are taken apart.
var addressHomes = []string{"card/", "addr/"}

// urlParseAllowed lists the files outside the address model that may parse a URL, each
// with the reason (as card's addressParserAllowed).
var urlParseAllowed = map[string]string{
	"internal/redact/redact.go": "URL credentials and secret query values, for redaction",
	"lint/helpers.go":           "whether a custom binding name is a URI (not an address)",
}

// TestURLParsedOnlyByTheAddressModel fails when non-test code outside the address model
// parses a URL by any spelling: url.Parse, url.ParseRequestURI, or the Parse method of
// a url.URL however it is reached. A Parse call on anything but an imported package
// counts as the method (only url.URL's Parse is called that way in this module, apart
// from a flag set's), so a
// new spelling cannot slip past as card's TestAddressModelHasOneHome, which sees only
// the package functions, would let it.
func TestURLParsedOnlyByTheAddressModel(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	var found []string
	moduleFiles(t, false, func(f goFile) {
		for _, h := range addressHomes {
			if strings.HasPrefix(f.rel, h) {
				return
			}
		}
		names := imports(f)
		ast.Inspect(f.ast, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !urlParsers[sel.Sel.Name] {
				return true
			}
			if root := rootName(sel.X); names[root] != "" && names[root] != "net/url" || isFlagSet(f, root) {
				return true // another package's: card.Parse, template.New(...).Parse, a flag set's
			}
			if _, ok := urlParseAllowed[f.rel]; ok {
				used[f.rel] = true
				return true
			}
			found = append(found, f.position(call)+": "+f.text(call.Fun))
			return true
		})
	})
	sort.Strings(found)
	for _, s := range found {
		t.Errorf("%s parses a URL outside the address model: read it with addr.ParseAddress (or add the file to urlParseAllowed, saying why)", s)
	}
	for rel := range urlParseAllowed {
		if !used[rel] {
			t.Errorf("urlParseAllowed lists %s, which no longer parses URLs: remove the entry", rel)
		}
	}
}

// rootName is the identifier an expression starts from: r for r.URL, url for
// (&url.URL{}), new for new(url.URL), template for template.New("x").
func rootName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			e = x.X
		case *ast.CallExpr:
			e = x.Fun
		case *ast.ParenExpr:
			e = x.X
		case *ast.UnaryExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.CompositeLit:
			e = x.Type
		case *ast.IndexExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// isFlagSet reports whether name is declared in f as a flag.FlagSet (fs :=
// flag.NewFlagSet(...)), whose Parse reads arguments, not URLs.
func isFlagSet(f goFile, name string) bool {
	return strings.Contains(string(f.src), name+" := flag.NewFlagSet(") || strings.Contains(string(f.src), name+" = flag.NewFlagSet(")
}
