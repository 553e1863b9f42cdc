package structure_test

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
	"testing"
)

// onceRules are duplicates deleted once (issue 46 item 5), each kept deleted: what
// non-test code outside its home may not write again, and where it lives instead.
var onceRules = []struct {
	what string
	home string // the one file or directory (prefix) that may write it
	// match reports whether a declaration or expression is the duplicate.
	match func(f goFile, n ast.Node) bool
}{
	{"a setter of one addr.Conn field (use WithConn)", "card/", func(f goFile, n ast.Node) bool {
		fd, ok := n.(*ast.FuncDecl)
		return ok && strings.HasPrefix(fd.Name.Name, "With") && fd.Name.Name != "WithConn" && fd.Body != nil &&
			connField.MatchString(f.text(fd.Body))
	}},
	{"an outcome (use wire's outcome list)", "wire/", func(f goFile, n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		return ok && vs.Type != nil && f.text(vs.Type) == "wire.Outcome" && len(vs.Values) > 0
	}},
	{"a health path (use server.PathHealthz, server.PathReadyz)", "server/routes.go", func(f goFile, n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		return ok && lit.Kind == token.STRING && (lit.Value == `"/healthz"` || lit.Value == `"/readyz"`)
	}},
	{"a plural, truncation or escaping helper (use internal/wording)", "internal/wording/", func(f goFile, n ast.Node) bool {
		fd, ok := n.(*ast.FuncDecl)
		return ok && fd.Body != nil && (pluralName.MatchString(fd.Name.Name) || truncation.MatchString(f.text(fd.Body)))
	}},
}

var (
	connField  = regexp.MustCompile(`\.conn\.(Header|RootCAs|Insecure|Dial|CredentialHosts|MaxInterfaces)\b.*=|\.conn\.AddHeader\(`)
	pluralName = regexp.MustCompile(`^(?i)plural`)
	truncation = regexp.MustCompile(`\[:\w+\] \+ "\.\.\."`)
)

// onceAllowed are the files that keep a copy for now, with the reason.
var onceAllowed = map[string]string{
	"card/load.go": "a truncation in the card reader, which another change rewrites",
}

// TestDuplicatesStayDeleted fails when non-test code writes again a rule deleted as a
// duplicate: single-field connection setters beside WithConn, an outcome outside wire,
// the health paths outside server, a plural, truncation or escaping helper outside
// internal/wording.
func TestDuplicatesStayDeleted(t *testing.T) {
	t.Parallel()
	moduleFiles(t, false, func(f goFile) {
		if _, ok := onceAllowed[f.rel]; ok {
			return
		}
		for _, r := range onceRules {
			if strings.HasPrefix(f.rel, r.home) || (r.home == "card/" && strings.HasPrefix(f.rel, "addr/")) {
				continue
			}
			ast.Inspect(f.ast, func(n ast.Node) bool {
				if n != nil && r.match(f, n) {
					t.Errorf("%s writes %s", f.position(n), r.what)
				}
				return true
			})
		}
	})
}

// TestTestServersStartedByHelpers fails when a test file outside server, lab and their
// helpers defines its own function that starts a server or a lab agent and registers
// its cleanup (the starters internal/servertest.Start and lab/labtest.Start replace).
func TestTestServersStartedByHelpers(t *testing.T) {
	t.Parallel()
	moduleFiles(t, true, func(f goFile) {
		if !strings.HasSuffix(f.rel, "_test.go") || strings.HasPrefix(f.rel, "server/") || strings.HasPrefix(f.rel, "lab/") || strings.HasPrefix(f.rel, "internal/structure/") {
			return
		}
		for _, d := range f.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || fd.Type.Results == nil {
				continue
			}
			body := f.text(fd.Body)
			res := f.text(fd.Type.Results)
			if (res == "*server.Server" || res == "*lab.Agent") && strings.Contains(body, ".Cleanup(") &&
				(strings.Contains(body, "server.New(") || strings.Contains(body, "lab.Start(")) {
				t.Errorf("%s: %s starts a test server of its own: use servertest.Start or labtest.Start", f.position(fd), fd.Name.Name)
			}
		}
	})
}
