package exporter

import (
	"bytes"
	"context"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// early is the check (probeAllowed: interface lookups and capabilities) of a target's
// previous card, started while the card is fetched again: most scrapes fetch the card
// they fetched last time, and then its check need not wait for the fetch. The results
// are kept only when the fetched document is byte for byte the previous one (the same
// card, checked with the same module config, as the lastCards key holds the module);
// otherwise the check is canceled, its results dropped, and the new card is checked.
// It costs at most one check of the previous card's interfaces per change of a card.
type early struct {
	prev    []byte // the previous card's document
	cancel  context.CancelFunc
	done    chan struct{}
	results []probe.Result
	caps    []probe.CapabilityResult
}

// startEarly starts the check of prev, whose document is doc, in ctx; nil when there is
// no previous card.
func (x *Exporter) startEarly(ctx context.Context, prev *card.Card, doc []byte, limit int, opts []probe.Option) *early {
	if prev == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	e := &early{prev: doc, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(e.done)
		e.results, e.caps = x.probeAllowed(ctx, prev, limit, opts)
	}()
	return e
}

// take waits for the early check and answers its results when doc, the document
// fetched now, is the previous card's; otherwise (or when doc is nil: no card) it
// cancels the check, waits for it to end and answers ok false.
func (e *early) take(doc []byte) (results []probe.Result, caps []probe.CapabilityResult, ok bool) {
	if e == nil {
		return nil, nil, false
	}
	if doc == nil || !bytes.Equal(doc, e.prev) {
		e.stop()
		return nil, nil, false
	}
	<-e.done
	e.cancel()
	return e.results, e.caps, true
}

// stop cancels the early check and waits for it to end: nothing of it outlives the
// scrape. Safe to call more than once, and on nil.
func (e *early) stop() {
	if e == nil {
		return
	}
	e.cancel()
	<-e.done
}
