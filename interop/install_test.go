package interop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingNodeSaysWhatToInstall checks the contract for a machine without Node or
// without the npm packages: findNode reports what is missing, and needNode fails the
// test with that and the install steps (it never skips). Not parallel: it changes the
// environment (the parallel tests wait until it is done).
func TestMissingNodeSaysWhatToInstall(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"no node on PATH", map[string]string{"PATH": t.TempDir()}, "node is not on PATH"},
		{"packages not installed", map[string]string{"A2ABIND_NODE_MODULES": t.TempDir()}, "@a2a-js/sdk is not installed"},
		{"another SDK version", map[string]string{"A2ABIND_NODE_MODULES": fakeModules(t, "1.2.0")}, `has @a2a-js/sdk "1.2.0", want 1.3.0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, err := findNode()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("findNode() = %v, want an error containing %q", err, tt.wantErr)
			}
			msg := nodeFailure(err)
			for _, want := range []string{tt.wantErr, "Node.js 20", "npm", "./test.sh", "interop/js/install.sh", "A2ABIND_NODE_MODULES"} {
				if !strings.Contains(msg, want) {
					t.Errorf("failure message lacks %q:\n%s", want, msg)
				}
			}
		})
	}
}

// fakeModules is a node_modules directory holding only an @a2a-js/sdk package.json.
func fakeModules(t *testing.T, version string) string {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "@a2a-js", "sdk")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@a2a-js/sdk","version":"`+version+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
