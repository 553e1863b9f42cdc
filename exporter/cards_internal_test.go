package exporter

import (
	"strconv"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
)

// TestLastCards_Bounded: the last cards are kept up to maxLastCards pairs and
// maxLastCardBytes of documents, the least recently scraped dropped first, and a pair
// whose card could not be fetched is forgotten.
func TestLastCards_Bounded(t *testing.T) {
	small, err := card.Parse([]byte(`{"name":"a","supportedInterfaces":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	l := newLastCards()
	for i := range maxLastCards + 10 {
		l.put("m", strconv.Itoa(i), small, small.Document())
	}
	l.put("m", "0", small, small.Document())  // dropped already: kept again, as the newest
	l.put("m", "10", small, small.Document()) // scraped again: now the newest
	if l.order.Len() != maxLastCards || len(l.byKey) != maxLastCards {
		t.Fatalf("%d cards kept (%d keys), want %d", l.order.Len(), len(l.byKey), maxLastCards)
	}
	for key, want := range map[string]bool{"0": true, "1": false, "11": false, "12": true, "10": true, strconv.Itoa(maxLastCards + 9): true} {
		if got := l.has("m", key); got != want {
			t.Errorf("target %s kept %v, want %v", key, got, want)
		}
	}
	if l.has("other module", "12") {
		t.Error("a card was answered for another module")
	}
	l.put("m", "12", nil, nil)
	if l.has("m", "12") {
		t.Error("a target whose card could not be fetched kept its old card")
	}

	big, err := card.Parse([]byte(`{"name":"` + strings.Repeat("x", card.DefaultMaxBytes-100) + `","supportedInterfaces":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	size := len(big.Document())
	for i := range 2 * maxLastCardBytes / size {
		l.put("big", strconv.Itoa(i), big, big.Document())
		if l.bytes > maxLastCardBytes {
			t.Fatalf("%d document bytes kept, over %d", l.bytes, maxLastCardBytes)
		}
	}
	if kept := l.bytes / size; kept != maxLastCardBytes/size || l.has("big", "0") {
		t.Errorf("%d big cards kept, want %d, the oldest dropped", kept, maxLastCardBytes/size)
	}
}

func (l *lastCards) has(module, target string) bool {
	c, _ := l.get(module, target)
	return c != nil
}
