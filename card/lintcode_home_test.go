package card_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/a2abind/a2abind/lint"
)

// TestLintCodesHaveOneHome fails when non-test code asks for a lint finding by a code
// written out (f.Code == "preferred-transport-missing", or a case of a switch on a
// Code) instead of by its lint.Code... (the reader's: card.Code...) constant, so that a code and its readers cannot
// drift apart. Other vocabularies that happen to share a word (the exporter's
// signature status "unsigned") are not findings' codes and are left alone.
func TestLintCodesHaveOneHome(t *testing.T) {
	t.Parallel()
	codes := map[string]bool{}
	for _, r := range lint.Rules() {
		codes[r.Code] = true
	}
	isCode := func(e ast.Expr) bool {
		s, ok := e.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Code"
	}
	moduleGoFiles(t, func(rel string, src []byte) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		check := func(e ast.Expr) {
			lit, ok := e.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && codes[s] {
				t.Errorf("%s: the lint code %q written out: compare with its lint.Code... or card.Code... constant", fset.Position(lit.Pos()), s)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isCode(n.X) || isCode(n.Y)) {
					check(n.X)
					check(n.Y)
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && isCode(n.Tag) {
					for _, s := range n.Body.List {
						for _, e := range s.(*ast.CaseClause).List {
							check(e)
						}
					}
				}
			}
			return true
		})
	})
}
