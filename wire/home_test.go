package wire_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// homeRules are what only package wire may write: a gRPC stats handler, the ErrorInfo
// type and domain, its expected-tenant metadata key, A2A error codes and reasons. A second copy is how tables drift apart.
var homeRules = []struct {
	what string
	re   *regexp.Regexp
}{
	{"a gRPC stats handler (use wire.GRPCStats)", regexp.MustCompile(`\) HandleRPC\(`)},
	{"the ErrorInfo type URL (use the SDK's errordetails)", regexp.MustCompile(`"type\.googleapis\.com/google\.rpc\.ErrorInfo"`)},
	{"the A2A ErrorInfo domain (use a2a.ProtocolDomain)", regexp.MustCompile(`"a2a-protocol\.org"`)},
	{"an A2A JSON-RPC error code (use wire.ErrorFor)", regexp.MustCompile(`[^0-9.]-3(20[0-9][0-9]|1401|1403|2[67][0-9][0-9])\b`)},
	{"the expected-tenant ErrorInfo metadata key (use wire.ExpectedTenantKey)", regexp.MustCompile(`"expectedTenant"`)},
	{"an A2A error reason (use a2a.ErrorReason)", regexp.MustCompile(`"(TASK_NOT_FOUND|VERSION_NOT_SUPPORTED|METHOD_NOT_FOUND|INVALID_PARAMS|CONTENT_TYPE_NOT_SUPPORTED|UNSUPPORTED_OPERATION)"`)},
}

// homeAllowed are files that keep a copy for now, with the reason.
var homeAllowed = map[string]string{
	// a2a-go v2.3.1's v0.3 REST transcoding; deleted with the move to v2.4.0 (issue 19 item 6).
	"server/restv03.go": "v0.3 REST transcoding until a2a-go v2.4.0",
	// The access log's gRPC handler logs requests; it records no wire evidence.
	"internal/accesslog/accesslog.go": "the access log, not evidence",
}

// TestWireIsTheOnlyHome fails when non-test code outside package wire writes its own
// copy of the failure vocabulary's tables (issue 19: one home for every rule).
func TestWireIsTheOnlyHome(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || rel == "wire" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || homeAllowed[rel] != "" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n, line := range strings.Split(string(data), "\n") {
			if code, _, _ := strings.Cut(line, "//"); strings.TrimSpace(code) != "" {
				for _, r := range homeRules {
					if r.re.MatchString(code) {
						t.Errorf("%s:%d writes %s: %s", rel, n+1, r.what, strings.TrimSpace(line))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
