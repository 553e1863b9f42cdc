package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/lab"
)

// TestExactReading_LintAndServe: a member named like a field but not exactly is an error
// in lint and makes serve --card refuse the card (exit 1, naming the member); a member
// name repeated in one object is lint's member-duplicate error (exit 1, JSON path named).
func TestExactReading_LintAndServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dup := write("dup.json", `{"name":"a","supportedInterfaces":[{"url":"http://127.0.0.1:1/","protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"http://127.0.0.2:1/"}]}`)
	code, out, _ := runCLI(t, "", "lint", dup, "-o", "json")
	var got lintOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitFailed || len(got.Findings) != 1 ||
		got.Findings[0].Code != "member-duplicate" || !strings.Contains(got.Findings[0].Message, `"supportedInterfaces[0].url"`) {
		t.Fatalf("lint duplicate: exit %d, %s", code, out)
	}
	if code, out, _ := runCLI(t, "", "lint", dup); code != ExitFailed || !strings.Contains(out, "member-duplicate") {
		t.Fatalf("lint duplicate (text): exit %d\n%s", code, out)
	}

	httpAddr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + httpAddr
	stray := write("stray.json", `{"name":"a","description":"d","version":"1","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],`+
		`"supportedInterfaces":[{"url":"`+base+`","protocolBinding":"JSONRPC","protocolVersion":"1.0","URL":"http://127.0.0.2:9/"}]}`)
	code, _, stderr := probeCLI(t, "", "serve", "--http", httpAddr, "--card", stray)
	if code != ExitFailed || !strings.Contains(stderr, "card refused") || !strings.Contains(stderr, `"supportedInterfaces[0].URL"`) {
		t.Fatalf("serve --card with a stray member: exit %d\n%s", code, stderr)
	}
	code, _, stderr = probeCLI(t, "", "serve", "--http", httpAddr, "--card", dup)
	if code != ExitFailed || !strings.Contains(stderr, `"supportedInterfaces[0].url" appears twice`) {
		t.Fatalf("serve --card with a repeated member: exit %d\n%s", code, stderr)
	}
	code, out, _ = runCLI(t, "", "lint", stray, "-o", "json")
	if code != ExitFailed || !strings.Contains(out, `"field-name-case"`) || !strings.Contains(out, `supportedInterfaces[0].URL`) {
		t.Fatalf("lint stray: exit %d\n%s", code, out)
	}
}
