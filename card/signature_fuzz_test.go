package card_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/signature"
)

func seedCards(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "cards", "*.json"))
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
}

// FuzzCanonicalize feeds arbitrary documents to every canonical form. Nothing may panic,
// every error wraps ErrCanonical, the RFC 8785 forms are their own canonical form, and
// canonicalising a canonical form changes nothing.
func FuzzCanonicalize(f *testing.F) {
	seedCards(f)
	f.Add([]byte(`{"capabilities":{"extensions":[{"params":{"n":1e-7,"s":"\u2028","":[{}]}}]},"name":"\ud83d\ude00"}`))
	f.Add([]byte(`{"skills":[null,{"tags":[""]}],"securitySchemes":{"a":{}},"supported_interfaces":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, form := range signature.Forms {
			out, err := signature.Canonicalize(data, form)
			if err != nil {
				if !errors.Is(err, signature.ErrCanonical) {
					t.Fatalf("%s: error %v does not wrap ErrCanonical", form, err)
				}
				continue
			}
			if !json.Valid(out) {
				t.Fatalf("%s: output is not JSON: %q", form, out)
			}
			if form == signature.FormPython {
				continue // not RFC 8785 by design
			}
			if again := jsontext.Value(bytes.Clone(out)); again.Canonicalize() != nil || !bytes.Equal(again, out) {
				t.Fatalf("%s: output is not RFC 8785 canonical (%v):\n%s\n%s", form, err, out, again)
			}
			if form == signature.FormSpec && !bytes.Equal(out, []byte("null")) {
				again, err := signature.Canonicalize(out, form)
				if err != nil || !bytes.Equal(again, out) {
					t.Fatalf("%s is not idempotent (%v):\n%s\n%s", form, err, out, again)
				}
			}
		}
	})
}

// FuzzVerifySignatures feeds arbitrary cards (signature entries included) to
// VerifySignatures with a trusted key and no jku origin. Nothing may panic, every entry
// gets exactly one known status, and nothing but an invalid entry lacks a kid.
func FuzzVerifySignatures(f *testing.F) {
	seedCards(f)
	f.Add([]byte(`{"signatures":[{"protected":"eyJhbGciOiJFUzI1NiIsImtpZCI6ImNvcnB1cy1lczI1NiIsInR5cCI6IkpPU0UifQ","signature":""}]}`))
	f.Add([]byte(`{"signatures":{"protected":1}}`))
	keys, err := signature.LoadKeySet(corpusKeys)
	if err != nil {
		f.Fatal(err)
	}
	known := map[signature.SignatureStatus]bool{signature.StatusValid: true, signature.StatusVariant: true, signature.StatusInvalid: true, signature.StatusUnverified: true, signature.StatusPartial: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := card.Parse(data)
		if err != nil {
			return
		}
		v, err := signature.VerifySignatures(context.Background(), c, signature.WithKeySet(keys))
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Signatures) > signature.MaxSignatures {
			t.Fatalf("%d results, over MaxSignatures", len(v.Signatures))
		}
		for _, s := range v.Signatures {
			if !known[s.Status] {
				t.Fatalf("status %q", s.Status)
			}
			if s.Status != signature.StatusInvalid && s.KeyID == "" {
				t.Fatalf("%s without kid: %+v", s.Status, s)
			}
			if (s.Status == signature.StatusPartial) != (len(s.Uncovered) > 0) {
				t.Fatalf("status %s with uncovered %q", s.Status, s.Uncovered)
			}
			if (s.Status == signature.StatusValid || s.Status == signature.StatusVariant || s.Status == signature.StatusPartial) != (s.Form != "") {
				t.Fatalf("form %q with status %s", s.Form, s.Status)
			}
		}
		_ = lint.Lint(c)
	})
}
