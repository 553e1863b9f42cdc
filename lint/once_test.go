package lint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/signature"
)

// TestLintRunsOncePerCard (issue 19 item 5): the rules run once per parsed card, callers
// get copies of that one result, and VerifySignatures (which changes what is known of the
// signatures) makes the next Lint run them again.
func TestLintRunsOncePerCard(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "testdata", "cards", "signed-a2a-js.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := card.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	first := Lint(c)
	c.LintMemo(c.SignatureState(), func() any {
		t.Fatal("Lint did not keep its result on the card")
		return nil
	})
	second := Lint(c)
	if !slices.Equal(first, second) || len(first) == 0 {
		t.Fatalf("Lint differs between calls: %v / %v", first, second)
	}
	second[0].Code = "changed"
	if Lint(c)[0].Code == "changed" {
		t.Fatal("Lint handed out its memo instead of a copy")
	}
	hasCode := func(fs []card.Finding, code string) bool {
		return slices.ContainsFunc(fs, func(f card.Finding) bool { return f.Code == code })
	}
	if !hasCode(first, card.CodeSignatureUnverified) {
		t.Fatalf("before verification: %v, want signature-unverified", first)
	}
	keys, err := signature.LoadKeySet(filepath.Join("..", "testdata", "keys", "corpus-jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(keys)); err != nil {
		t.Fatal(err)
	}
	if after := Lint(c); !hasCode(after, card.CodeSignatureValid) || hasCode(after, card.CodeSignatureUnverified) {
		t.Fatalf("after verification: %v, want signature-valid", after)
	}
}
