package card_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
)

var sourcePattern = regexp.MustCompile(`^(supportedInterfaces\[\d+\]|additionalInterfaces\[\d+\]|url\+preferredTransport)$`)

// FuzzParse feeds arbitrary documents to Parse and Lint, seeded with every card in
// testdata/cards. Nothing may panic, every error must wrap ErrMalformed, and every
// parsed card must satisfy the model's invariants.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "cards", "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed cards: %v", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"supportedInterfaces": [null, {}], "additionalInterfaces": [null], "url": ""}`))
	f.Add([]byte(`{"url": "GRPC", "preferredTransport": "grpc", "additionalInterfaces": [{"url": "[::]:1", "transport": "GRPC"}]}`))

	rulesByCode := map[string]card.Severity{}
	for _, r := range lint.Rules() {
		rulesByCode[r.Code] = r.Severity
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := card.Parse(data)
		if err != nil {
			if !errors.Is(err, card.ErrMalformed) {
				t.Fatalf("Parse() error %v does not wrap ErrMalformed", err)
			}
			if x, ok := card.FindingOf(err); ok && x.Code == card.CodeDocumentRefused && json.Valid(data) {
				t.Fatalf("Parse() = %v, but encoding/json (a2a-go's card resolver) reads the document", err)
			}
			return
		}
		checkInvariants(t, c)
		// A document a2abind reads is one encoding/json, and so a2a-go, reads, unless
		// lint says a2a-go refuses it.
		refused := slices.ContainsFunc(lint.Lint(c), func(x card.Finding) bool { return x.Code == card.CodeDocumentRefused })
		if refused == json.Valid(data) {
			t.Fatalf("lint reports document-refused: %v; encoding/json reads the document: %v", refused, json.Valid(data))
		}
		for _, x := range lint.Lint(c) {
			sev, ok := rulesByCode[x.Code]
			if !ok || sev != x.Severity || x.Message == "" || x.Fix == "" {
				t.Fatalf("Lint() finding %+v is not a documented rule with a message and fix", x)
			}
			if x.Interface != "" && !sourcePattern.MatchString(x.Interface) {
				t.Fatalf("Lint() finding %+v names interface %q", x, x.Interface)
			}
		}
		if _, err := json.Marshal(c); err != nil {
			t.Fatalf("json.Marshal(card) = %v", err)
		}
		again, err := card.Parse(data)
		if err != nil || len(again.Interfaces) != len(c.Interfaces) {
			t.Fatalf("Parse() is not deterministic: %v", err)
		}
	})
}

// checkInvariants holds for every card Parse returns.
func checkInvariants(t *testing.T, c *card.Card) {
	t.Helper()
	seen := map[string]string{}
	preferred := map[string]int{}
	for _, i := range c.Interfaces {
		src := i.Source.String()
		if !sourcePattern.MatchString(src) {
			t.Fatalf("interface %+v has source %q", i, src)
		}
		if back, err := card.ParseSource(src); err != nil || back != i.Source {
			t.Fatalf("source %q reads back as %+v, %v", src, back, err)
		}
		if first, dup := seen[i.Key()]; dup {
			t.Fatalf("interface %s (%s) repeats %s", i, src, first)
		}
		seen[i.Key()] = src
		if i.Preferred {
			preferred[strings.SplitN(src, "[", 2)[0]]++
		}
		if i.Source == card.SourcePrimary && i.Binding == "" {
			t.Fatalf("v0.3 primary %+v has no binding (the default is JSONRPC)", i)
		}
		if strings.HasPrefix(src, "additionalInterfaces") && i.Preferred && c.Shape != card.ShapeUnion {
			// Only a duplicate of the primary can carry its mark, and duplicates are merged into the first.
			t.Fatalf("additionalInterfaces entry %+v is marked preferred", i)
		}
	}
	// One preferred entry per layout: the first supportedInterfaces entry and the v0.3
	// primary (which, in a union card, is merged into the supportedInterfaces entry it repeats).
	total := 0
	for _, n := range preferred {
		total += n
	}
	if preferred["url+preferredTransport"] > 1 || total > 2 || (c.Shape != card.ShapeUnion && total > 1) {
		t.Fatalf("shape %s: preferred interfaces %v", c.Shape, preferred)
	}
	switch c.Shape {
	case card.ShapeNone:
		if len(c.Interfaces) > 0 {
			t.Fatalf("shape none with interfaces %v", c.Interfaces)
		}
	case card.ShapeV1, card.ShapeV03, card.ShapeUnion:
	default:
		t.Fatalf("shape %q", c.Shape)
	}
	// The first supportedInterfaces entry and the v0.3 primary are preferred. A card with
	// neither (additionalInterfaces but no url) has no preferred interface.
	for _, i := range c.Interfaces {
		if (i.Source == card.Supported(0) || i.Source == card.SourcePrimary) && !i.Preferred {
			t.Fatalf("interface %+v should be preferred", i)
		}
	}
	if _, hasPrimary := c.Primary(); hasPrimary && len(c.Preferred()) == 0 {
		t.Fatalf("shape %s: a v0.3 primary but no preferred interface in %v", c.Shape, c.Interfaces)
	}
}
