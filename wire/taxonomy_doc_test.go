package wire_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/wire"
)

// TestTaxonomyDocMatchesCode ties docs/taxonomy.md to the code, as
// card.TestRulesDocMatchesCode does for lint rules: its outcome table lists exactly
// wire.Outcomes (and probe's client-impact no_interface), in order, and its evidence
// table is wire.Rules row for row.
func TestTaxonomyDocMatchesCode(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "taxonomy.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	outcomeTable, rest, ok := strings.Cut(doc, "## Evidence rules")
	if !ok {
		t.Fatal(`docs/taxonomy.md has no "## Evidence rules" section`)
	}
	var inDoc []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(outcomeTable, -1) {
		inDoc = append(inDoc, m[1])
	}
	var inCode []string
	for _, o := range wire.Outcomes() {
		inCode = append(inCode, string(o))
	}
	inCode = append(inCode, "no_interface")
	if diff := cmp.Diff(inCode, inDoc); diff != "" {
		t.Errorf("docs/taxonomy.md outcome table (-code +doc):\n%s", diff)
	}

	var rows, want []string
	for _, l := range strings.Split(rest, "\n") {
		if strings.HasPrefix(l, "| ") && strings.Contains(l, " | `") && strings.Count(l, " | ") == 2 {
			rows = append(rows, l)
		}
	}
	for _, r := range wire.Rules() {
		want = append(want, fmt.Sprintf("| %s | `%s` | %s |", r.Evidence, r.Weight, r.Reason))
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("docs/taxonomy.md evidence table (-code +doc):\n%s", diff)
	}
}
