package guard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/wording"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/signature"
)

// probeTimeout is one interface's budget: WithProbeTimeout, capped by the interval.
func (g *Guard) probeTimeout() time.Duration { return min(g.o.probeTimeout, g.o.interval) }

// round fetches the upstream card, probes it and publishes or withholds it.
func (g *Guard) round(ctx context.Context) {
	pt := g.probeTimeout()
	// A round ends in bounded time whatever the card declares (10,000 interfaces): what
	// is not probed by then counts as a timeout, i.e. not served.
	ctx, cancel := context.WithTimeout(ctx, max(g.o.interval, 2*pt))
	defer cancel()
	prev := g.snap.Load()
	next := &snapshot{State: State{Round: 1}}
	if prev != nil {
		next.Round = prev.Round + 1
	}
	ctx, span := startRound(ctx)
	defer endRound(span, next)
	g.judge(ctx, next, pt)
	if ctx.Err() != nil && g.stopping.Load() {
		return // shutting down: keep the last state rather than publish a half round
	}
	next.Since = next.Round
	if prev != nil && prev.Published == next.Published {
		next.Since = prev.Since
	}
	if next.Published {
		next.ETag = card.ETagOf(next.body)
		next.modified = time.Now().UTC().Truncate(time.Second)
		if prev != nil && prev.Published && prev.ETag == next.ETag {
			next.modified = prev.modified
		}
	}
	g.snap.Store(next)
	g.logChange(prev, next)
}

// judge fills s: the card to publish, or why it is withheld.
func (g *Guard) judge(ctx context.Context, s *snapshot, pt time.Duration) {
	c, err := card.Load(ctx, g.upstream, card.WithHTTPClient(g.client), card.WithTimeout(pt))
	if err != nil {
		s.public = "the upstream card is not obtainable"
		s.Reason = s.public + ": " + err.Error()
		return
	}
	if err := g.requireSignature(ctx, c, pt); err != nil {
		s.public = "no card signature verifies and covers the interfaces"
		s.Reason = err.Error()
		return // nothing dialled: the card's addresses are not vouched for
	}
	if f := ambiguous(c); len(f) > 0 && !g.o.normalize { // --normalize drops the stray members
		s.public = "the card's field names are spelt in another case (" + card.CodeFieldNameCase + "): clients read it differently"
		s.Reason, s.Findings = s.public+": "+f[0].Message, f
		return
	}
	ch := g.probe(ctx, c, pt)
	s.Results, s.Capabilities = ch.Results, ch.Capabilities
	findings := ch.Report(c).Findings
	for _, f := range findings {
		switch f.Code {
		case card.CodeInterfaceNotServed, card.CodePreferredNotServed, card.CodeCapabilityNotServed:
			s.Findings = append(s.Findings, f)
		}
	}
	if !g.o.normalize {
		if len(s.Findings) > 0 {
			s.Reason = withheldReason(s.Findings, s.Capabilities)
			s.public = s.Reason
			return
		}
		s.Published, s.body = true, c.Document()
		return
	}
	nz, err := normalize(c, s.Results, s.Capabilities, findings)
	if err != nil {
		// ErrNothingServed's text is the public reason already; the interfaces follow it.
		s.public, s.Reason = ErrNothingServed.Error(), err.Error()
		if !errors.Is(err, ErrNothingServed) {
			s.public = "the card cannot be normalized"
			s.Reason = s.public + ": " + err.Error()
		}
		return
	}
	if nz.Changed && g.o.signing != nil {
		signed, err := g.o.signing.signer.Sign(nz.Document)
		if err == nil {
			err = verify(signed, servedKeys(findings, s.Results), nz.Capabilities)
		}
		if err != nil {
			s.public = "the normalized card cannot be signed"
			s.Reason = s.public + ": " + err.Error()
			return
		}
		nz.Document, s.Resigned = signed, g.o.signing.key.KeyID
	}
	s.Published, s.body, s.Normalized = true, nz.Document, &nz
}

// requireSignature verifies c's signatures with WithRequireSignature (card's one
// verification path); nil without it, or when a signature verifies and covers every
// member used to connect.
func (g *Guard) requireSignature(ctx context.Context, c *card.Card, pt time.Duration) error {
	if !g.o.requireSig {
		return nil
	}
	v, err := signature.VerifySignatures(ctx, c, append([]signature.VerifyOption{signature.WithJKUTimeout(pt)}, g.o.verify...)...)
	if err != nil {
		return err
	}
	return v.Require()
}

// probe checks c's interfaces and capabilities (probe.Check) where the mappings say
// (the card's own addresses otherwise, probe.WithProbeVia): the results in card order,
// each naming the interface as the card declares it.
func (g *Guard) probe(ctx context.Context, c *card.Card, pt time.Duration) probe.CardCheck {
	via := func(i card.Interface) (string, bool) { return mapURL(i.URL, g.o.via) }
	// The guard's one engine reuses the capability calls of an interface for
	// probe.DefaultCapabilityMaxAge while the card's claims stay the same, as the
	// exporter does: a steady round asks each interface once, and the card.
	return g.engine.Check(ctx, c, probe.WithTimeout(pt), probe.WithProbeVia(via))
}

// withheldReason says why strict mode withholds a card: how many declared interfaces
// are not served, and which declared capabilities (names only: the 503 a client sees
// carries no upstream address; State.Reason's findings and the log have them).
func withheldReason(findings []card.Finding, caps []probe.CapabilityResult) string {
	ifaces, preferred := 0, false
	for _, f := range findings {
		switch f.Code {
		case card.CodeInterfaceNotServed:
			ifaces++
		case card.CodePreferredNotServed:
			preferred = true
		}
	}
	var parts, names []string
	switch {
	case ifaces > 0:
		parts = append(parts, fmt.Sprintf("%d declared interface(s) not served", ifaces))
	case preferred:
		parts = append(parts, "the preferred interface is not served")
	}
	for _, cr := range caps {
		if cr.Declared() && cr.Verdict == probe.CapabilityNotServed {
			names = append(names, string(cr.Name))
		}
	}
	if len(names) > 0 {
		parts = append(parts, fmt.Sprintf("declared capabilit%s not served: %s", wording.Plural(len(names), "y", "ies"), strings.Join(names, ", ")))
	}
	return strings.Join(parts, "; ")
}

// logChange logs a state that differs from the previous one: published (which card,
// what the normalizer did) or withheld (why, with one line per interface and cause).
func (g *Guard) logChange(prev, next *snapshot) {
	log := g.o.logger
	if prev != nil && prev.Published == next.Published && prev.ETag == next.ETag && prev.Reason == next.Reason {
		log.Debug("round: unchanged", "round", next.Round, "published", next.Published)
		return
	}
	if !next.Published {
		log.Warn("card withheld", "upstream", g.cardURL(), "round", next.Round, "reason", next.Reason)
		for _, f := range next.Findings {
			log.Warn("not served", "code", f.Code, "interface", f.Interface, "cause", f.Message)
		}
		return
	}
	attrs := []any{"upstream", g.cardURL(), "round", next.Round, "etag", next.ETag, "mode", g.mode()}
	nz := next.Normalized
	if nz == nil || !nz.Changed {
		log.Info("card published unchanged", attrs...)
		return
	}
	removed := make([]string, 0, len(nz.Removed))
	for _, i := range nz.Removed {
		removed = append(removed, i.String()+" ("+i.Source.String()+")")
	}
	attrs = append(attrs, "removed", strings.Join(removed, ", "))
	for _, c := range nz.Capabilities {
		attrs = append(attrs, "set "+c.Member, c.Declared)
	}
	if nz.Preferred != nil {
		attrs = append(attrs, "preferred", nz.Preferred.String())
	}
	log.Info("card published normalized", attrs...)
	for _, f := range next.Findings {
		log.Info("left out", "code", f.Code, "interface", f.Interface, "cause", f.Message)
	}
	if next.Resigned != "" {
		log.Info("card re-signed by the guard", "kid", next.Resigned)
	}
	if nz.SignaturesDropped > 0 {
		log.Warn("signatures dropped: the upstream card was signed and had to be rewritten; the published card is unsigned",
			slog.Int("signatures", nz.SignaturesDropped), slog.String("header", HeaderSignaturesDropped))
	}
}

func (g *Guard) mode() string {
	if g.o.normalize {
		return "normalize"
	}
	return "strict"
}
