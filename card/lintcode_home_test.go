package card_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/a2abind/a2abind/lint"
)

// TestLintCodesHaveOneHome fails when non-test code asks for a lint finding by a code
// written out (f.Code == "preferred-transport-missing", or a case of a switch on a
// Code) instead of by its card.Code... constant, so that a code and its readers cannot
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
				t.Errorf("%s: the lint code %q written out: compare with its card.Code... constant", fset.Position(lit.Pos()), s)
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

// TestFindingCodesDeclaredInOneFile fails when a finding code constant (a Code...
// constant) is declared anywhere but card/codes.go: lint's, the reader's and probe's
// wire findings' codes have one home.
func TestFindingCodesDeclaredInOneFile(t *testing.T) {
	t.Parallel()
	found := 0
	moduleGoFiles(t, func(rel string, src []byte) {
		f, err := parser.ParseFile(token.NewFileSet(), rel, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					if !strings.HasPrefix(name.Name, "Code") || len(name.Name) < 5 || !unicode.IsUpper(rune(name.Name[4])) {
						continue
					}
					if rel != filepath.Join("card", "codes.go") {
						t.Errorf("%s declares the finding code %s: declare it in card/codes.go", rel, name.Name)
					}
					found++
				}
			}
		}
	})
	if found < len(lint.Rules()) {
		t.Errorf("card/codes.go declares %d codes, fewer than lint's %d rules", found, len(lint.Rules()))
	}
}
