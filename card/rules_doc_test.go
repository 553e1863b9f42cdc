package card_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/signature"
)

// docRule is one "## code" section of docs/lint-rules.md.
type docRule struct {
	Code, Severity, Fix, Example string
}

func readRulesDoc(t *testing.T) []docRule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "lint-rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	sev := regexp.MustCompile(`(?m)^- \*\*Severity:\*\* (\S+)$`)
	fix := regexp.MustCompile(`(?m)^- \*\*Fix:\*\* (.+)$`)
	example := regexp.MustCompile("(?s)```json\n(.*?)\n```")
	exampleFile := regexp.MustCompile("(?m)^Example file: `([^`]+)`$") // signed cards, checked with the corpus keys
	var out []docRule
	for _, section := range strings.Split(string(data), "\n## ")[1:] {
		code, body, _ := strings.Cut(section, "\n")
		r := docRule{Code: strings.TrimSpace(code)}
		if m := sev.FindStringSubmatch(body); m != nil {
			r.Severity = m[1]
		}
		if m := fix.FindStringSubmatch(body); m != nil {
			r.Fix = m[1]
		}
		if m := example.FindStringSubmatch(body); m != nil {
			r.Example = m[1]
		}
		if m := exampleFile.FindStringSubmatch(body); m != nil {
			data, err := os.ReadFile(filepath.Join("..", m[1]))
			if err != nil {
				t.Fatalf("%s: %v", r.Code, err)
			}
			r.Example = string(data)
		}
		out = append(out, r)
	}
	return out
}

// TestRulesDocMatchesCode fails when a rule code exists in code but not in
// docs/lint-rules.md, or the other way round, or their severities differ.
func TestRulesDocMatchesCode(t *testing.T) {
	var inDoc, inCode []string
	for _, r := range readRulesDoc(t) {
		inDoc = append(inDoc, r.Code+" "+r.Severity)
	}
	for _, r := range lint.Rules() {
		inCode = append(inCode, r.Code+" "+string(r.Severity))
	}
	if diff := cmp.Diff(inCode, inDoc); diff != "" {
		t.Errorf("docs/lint-rules.md sections (code severity) differ from lint.Rules() (-code +doc):\n%s", diff)
	}
}

// TestRulesDocExamplesTrigger parses each documented example and checks that lint
// reports the section's code for it, with a fix.
func TestRulesDocExamplesTrigger(t *testing.T) {
	for _, r := range readRulesDoc(t) {
		t.Run(r.Code, func(t *testing.T) {
			if r.Example == "" || r.Fix == "" {
				t.Fatalf("section %s needs an example and a fix", r.Code)
			}
			c, err := card.Parse([]byte(r.Example))
			if x, ok := card.FindingOf(err); ok && x.Code == r.Code {
				return // reported by the reader
			}
			if err != nil {
				t.Fatalf("Parse(example) = %v", err)
			}
			keys, err := signature.LoadKeySet(corpusKeys)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(keys)); err != nil {
				t.Fatal(err)
			}
			for _, x := range lint.Lint(c) {
				if x.Code == r.Code {
					return
				}
			}
			t.Errorf("Lint(example) = %v, want a %s finding", codes(lint.Lint(c)), r.Code)
		})
	}
}

// TestRulesAreWellFormed checks the table itself: kebab-case unique codes, known
// severities, and a summary and fix on every rule.
func TestRulesAreWellFormed(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range lint.Rules() {
		if !kebab.MatchString(r.Code) || seen[r.Code] {
			t.Errorf("code %q is not kebab-case or is repeated", r.Code)
		}
		seen[r.Code] = true
		switch r.Severity {
		case card.SeverityError, card.SeverityWarning, card.SeverityInfo:
		default:
			t.Errorf("%s: severity %q", r.Code, r.Severity)
		}
		if r.Summary == "" || r.Fix == "" || strings.Contains(r.Fix, "\n") {
			t.Errorf("%s: needs a summary and a one-line fix", r.Code)
		}
	}
}
