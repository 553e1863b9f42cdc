package structure_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// goFile is one Go file of the module, parsed.
type goFile struct {
	rel  string // relative to the module root, slash-separated
	src  []byte
	fset *token.FileSet
	ast  *ast.File
}

// position is rel:line of n.
func (f goFile) position(n ast.Node) string {
	return f.rel + ":" + strconv.Itoa(f.fset.Position(n.Pos()).Line)
}

// text is the source of n.
func (f goFile) text(n ast.Node) string {
	return string(f.src[f.fset.Position(n.Pos()).Offset:f.fset.Position(n.End()).Offset])
}

// moduleFiles calls fn with every Go file of the module (test files too when tests),
// parsed, outside testdata, node_modules and hidden directories.
func moduleFiles(t *testing.T, tests bool, fn func(f goFile)) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || (!tests && strings.HasSuffix(path, "_test.go")) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		seen++
		fn(goFile{rel: filepath.ToSlash(rel), src: src, fset: fset, ast: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("walked %d Go files; the module has more (is the walk rooted at the module?)", seen)
	}
}

// imports maps the local names of f's imports to their paths.
func imports(f goFile) map[string]string {
	names := map[string]string{}
	for _, imp := range f.ast.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	return names
}
