package exporter

import (
	"container/list"
	"sync"

	"github.com/a2abind/a2abind/card"
)

// Bounds of the last cards kept for re-reading (card.WithPrevious): how many
// (module, target) pairs, and how many document bytes in all.
const (
	maxLastCards     = 1024
	maxLastCardBytes = 16 << 20
)

// lastCards keeps the card each (module, target) pair answered at its last scrape, so
// that the next scrape re-reads it without parsing and linting again when the fetched
// document has not changed (card.WithPrevious compares the bytes). It is bounded by
// maxLastCards and maxLastCardBytes, the least recently scraped dropped first.
type lastCards struct {
	mu    sync.Mutex
	order *list.List // of *lastCard, most recently scraped first
	byKey map[string]*list.Element
	bytes int
}

type lastCard struct {
	key  string
	card *card.Card
	doc  []byte // its document, which the next scrape's is compared with
}

func newLastCards() *lastCards {
	return &lastCards{order: list.New(), byKey: map[string]*list.Element{}}
}

func lastCardKey(module, target string) string { return module + "\x00" + target }

// get is the card of the last scrape of (module, target) and its document, nil when
// none is kept.
func (l *lastCards) get(module, target string) (*card.Card, []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.byKey[lastCardKey(module, target)]; ok {
		lc := e.Value.(*lastCard)
		return lc.card, lc.doc
	}
	return nil, nil
}

// put keeps c, whose document is doc (c.Document()), as the card of (module, target),
// or forgets the pair when c is nil (its card could not be obtained).
func (l *lastCards) put(module, target string, c *card.Card, doc []byte) {
	key := lastCardKey(module, target)
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.byKey[key]; ok {
		l.remove(e)
	}
	if c == nil || len(doc) > maxLastCardBytes {
		return
	}
	l.byKey[key] = l.order.PushFront(&lastCard{key: key, card: c, doc: doc})
	l.bytes += len(doc)
	for l.order.Len() > maxLastCards || l.bytes > maxLastCardBytes {
		l.remove(l.order.Back())
	}
}

func (l *lastCards) remove(e *list.Element) {
	lc := l.order.Remove(e).(*lastCard)
	delete(l.byKey, lc.key)
	l.bytes -= len(lc.doc)
}
