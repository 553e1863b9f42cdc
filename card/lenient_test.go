package card_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
)

// TestNullIsReadAsEmpty: null in a list or object field is read as the empty value and
// reported once, as a warning (field-null), never as a missing REQUIRED field.
func TestNullIsReadAsEmpty(t *testing.T) {
	const base = `"name": "n", "description": "d", "version": "1", "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [{"id": "s"}]`
	const iface = `"supportedInterfaces": [{"url": "https://a.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]`
	tests := []struct {
		name, doc string
		want      []f
	}{
		{"no nulls", `{` + base + `, ` + iface + `}`, []f{}},
		{"skills null", `{` + strings.Replace(base, `"skills": [{"id": "s"}]`, `"skills": null`, 1) + `, ` + iface + `}`, []f{{"field-null", ""}}},
		{"capabilities null", `{` + strings.Replace(base, `"capabilities": {}`, `"capabilities": null`, 1) + `, ` + iface + `}`, []f{{"field-null", ""}}},
		{"additionalInterfaces and securitySchemes null", `{` + base + `, ` + iface + `, "additionalInterfaces": null, "securitySchemes": null}`,
			[]f{{"field-null", ""}, {"field-null", ""}}},
		// An explicit empty REQUIRED list is still an error: it is not null.
		{"skills empty", `{` + strings.Replace(base, `"skills": [{"id": "s"}]`, `"skills": []`, 1) + `, ` + iface + `}`, []f{{"required-field-missing", ""}}},
		// A v0.3 card with "supportedInterfaces": null stays a v0.3 card.
		{"v0.3 with supportedInterfaces null", `{` + base + `, "protocolVersion": "0.3.0", "url": "https://a.example.com/a2a", "preferredTransport": "JSONRPC", "supportedInterfaces": null}`,
			[]f{{"field-null", ""}, {"supported-interfaces-missing", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := card.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, codes(lint.Lint(c))); diff != "" {
				t.Errorf("Lint() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNotACard: a JSON object with no name and no interface field is refused, naming its
// keys; one with a name or any interface field is a card (lint says what is missing).
func TestNotACard(t *testing.T) {
	for _, doc := range []string{`{}`, `{"status": "ok"}`, `{"jsonrpc": "2.0", "id": 1, "result": {}}`, `{"name": null, "skills": []}`, `{"URL": "https://a.example.com"}`} {
		_, err := card.Parse([]byte(doc))
		if !errors.Is(err, card.ErrNotACard) || !errors.Is(err, card.ErrMalformed) {
			t.Errorf("Parse(%s) = %v, want ErrNotACard and ErrMalformed", doc, err)
		}
	}
	if _, err := card.Parse([]byte(`{"jsonrpc": "2.0", "id": 1}`)); err == nil || !strings.Contains(err.Error(), "a JSON-RPC message") {
		t.Errorf("Parse(JSON-RPC answer) = %v, want it named a JSON-RPC message", err)
	}
	for _, doc := range []string{`{"name": "x"}`, `{"url": "https://a.example.com"}`, `{"supportedInterfaces": null}`} {
		if _, err := card.Parse([]byte(doc)); err != nil {
			t.Errorf("Parse(%s) = %v, want a card", doc, err)
		}
	}
}

// TestInterfacesAlwaysAList: "interfaces" is [] in JSON for a card with none, parsed or built by hand.
func TestInterfacesAlwaysAList(t *testing.T) {
	parsed, err := card.Parse([]byte(`{"name": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*card.Card{parsed, {Shape: card.ShapeNone}} {
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"interfaces":[]`) {
			t.Errorf("json.Marshal(card) = %s, want \"interfaces\":[]", data)
		}
	}
}
