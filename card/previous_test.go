package card

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// TestWithPrevious: a fetch given the card of an earlier fetch answers a copy of it
// (its reading and lint memo shared, nothing parsed) exactly when the document is byte
// for byte the same (a leading BOM aside, which the reader drops), with this fetch's
// Location, Origin and ETag and no verification carried over; any other document is
// read anew, and a failed fetch answers no card.
func TestWithPrevious(t *testing.T) {
	doc := readTestCard(t, "signed-a2a-js.json")
	var (
		mu     sync.Mutex
		body   = doc
		status = http.StatusOK
		n      atomic.Int64
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("ETag", strconv.Quote(strconv.FormatInt(n.Add(1), 10)))
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	serve := func(b []byte, code int) {
		mu.Lock()
		defer mu.Unlock()
		body, status = b, code
	}
	ctx := context.Background()
	prev, err := Fetch(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	const verified = "verified" // what package signature would keep on the card
	prev.SetSignatureState(verified)

	for _, tc := range []struct {
		name string
		body []byte
	}{{"same bytes", doc}} {
		serve(tc.body, http.StatusOK)
		c, err := Fetch(ctx, srv.URL, WithPrevious(prev))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c == prev || c.doc != prev.doc || c.lintMemo != prev.lintMemo {
			t.Errorf("%s: the document was read again instead of reused", tc.name)
		}
		if c.ETag == prev.ETag || c.ETag != strconv.Quote(strconv.FormatInt(n.Load(), 10)) {
			t.Errorf("%s: ETag %s, want this fetch's (%d), not the previous one's %s", tc.name, c.ETag, n.Load(), prev.ETag)
		}
		if c.Location != prev.Location || c.Origin != prev.Origin || c.SignatureState() != nil {
			t.Errorf("%s: Location %q Origin %v Verification %v; want this fetch's and none", tc.name, c.Location, c.Origin, c.SignatureState())
		}
		if fresh := fetchedAnew(t, tc.body, c); !reflect.DeepEqual(Lint(c), Lint(fresh)) {
			t.Errorf("%s: Lint of the reused card %v, read anew %v", tc.name, Lint(c), Lint(fresh))
		}
		if prev.SignatureState() != verified {
			t.Errorf("%s: the previous card's verification changed", tc.name)
		}
	}

	// The same bytes after a BOM are another document: a2a-go refuses it, lint says so.
	serve(append(slices.Clone(utf8BOM), doc...), http.StatusOK)
	if c, err := Fetch(ctx, srv.URL, WithPrevious(prev)); err != nil || c.doc == prev.doc || c.Refused() == nil {
		t.Errorf("the document after a BOM = %v, %v: want it read anew, refused by a2a-go", c, err)
	}

	changed := readTestCard(t, "v1-healthy.json")
	serve(changed, http.StatusOK)
	c, err := Fetch(ctx, srv.URL, WithPrevious(prev))
	if err != nil {
		t.Fatal(err)
	}
	if c.doc == prev.doc || c.Name == prev.Name || len(Lint(c)) == len(Lint(prev)) && reflect.DeepEqual(Lint(c), Lint(prev)) {
		t.Errorf("a changed document answered the previous card (%s)", c.Name)
	}
	fetchedAnew(t, changed, c)

	serve(doc, http.StatusInternalServerError)
	if c, err := Fetch(ctx, srv.URL, WithPrevious(prev)); c != nil || !errors.Is(err, ErrUnavailable) {
		t.Errorf("a failed fetch = %v, %v; want no card and ErrUnavailable", c, err)
	}
	serve(doc[:len(doc)/2], http.StatusOK)
	if c, err := Fetch(ctx, srv.URL, WithPrevious(prev)); c != nil || !errors.Is(err, ErrMalformed) {
		t.Errorf("a truncated document = %v, %v; want no card and ErrMalformed", c, err)
	}
	if c, err := Fetch(ctx, srv.URL, WithPrevious(nil)); c != nil || err == nil {
		t.Errorf("WithPrevious(nil) = %v, %v; want the truncated document's error", c, err)
	}
}

// TestWithPreviousEqualsParse: over the card corpus, the copy WithPrevious answers for
// an unchanged document is what reading it anew gives: the same exported fields, JSON,
// interfaces, lint findings and document.
func TestWithPreviousEqualsParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "cards", "*.json"))
	if err != nil || len(files) < 10 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	read := 0
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prev, err := Parse(doc)
		if err != nil {
			continue // not a card: nothing to reuse
		}
		read++
		c := reread(prev, doc)
		if c == nil || c.doc != prev.doc {
			t.Fatalf("%s: not reused", f)
		}
		fetchedAnew(t, doc, c)
	}
	if read < 10 {
		t.Fatalf("only %d corpus cards were read", read)
	}
}

// fetchedAnew fails t unless c is what Parse reads from doc, apart from what a fetch
// sets, and returns that fresh card.
func fetchedAnew(t *testing.T, doc []byte, c *Card) *Card {
	t.Helper()
	fresh, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Location, fresh.Origin, fresh.ETag = c.Location, c.Origin, c.ETag
	got, _ := json.Marshal(c)
	want, _ := json.Marshal(fresh)
	if string(got) != string(want) || !reflect.DeepEqual(c.Interfaces, fresh.Interfaces) ||
		!reflect.DeepEqual(c.Capabilities, fresh.Capabilities) || !reflect.DeepEqual(c.declared, fresh.declared) ||
		!reflect.DeepEqual(Lint(c), Lint(fresh)) || string(c.Document()) != string(fresh.Document()) {
		t.Errorf("the card differs from the document read anew:\n got %s\nwant %s", got, want)
	}
	return fresh
}

func readTestCard(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "cards", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
