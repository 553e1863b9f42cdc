package cli

import (
	"context"

	"github.com/a2abind/a2abind/card"
)

// cardLoad is what a command says about the card it reads.
type cardLoad struct {
	// hint names the command and TARGET (hint.target) for the hint of a failure.
	hint hintContext
	// timeoutSet says --timeout was given: it then bounds the card fetch, which otherwise
	// keeps its own 10 s bound.
	timeoutSet bool
	// opts are the command's card options (connection, HTTP client).
	opts []card.Option
	// failed builds the command's -o json document for a card that cannot be obtained;
	// nil for none.
	failed func(error) any
	// ambiguous, when not nil, reports a document the card reader refuses as ambiguous (a
	// repeated member name) as the finding it is (lint); else that is a failure like any.
	ambiguous func(card.Finding) error
}

// loadCard is how a command reads the card TARGET names: a file, "-" for standard
// input, a card URL or a base URL. It is the one place where a card that cannot be
// obtained becomes exit status 2 with a hint saying what to do next and, with -o json,
// the command's JSON document for the failure.
func loadCard(ctx context.Context, g *globals, l cardLoad) (*card.Card, error) {
	opts := append([]card.Option{card.WithStdin(g.stdin)}, l.opts...)
	if l.timeoutSet && g.timeout > 0 {
		opts = append(opts, card.WithTimeout(g.timeout))
	}
	c, err := card.Load(ctx, l.hint.target, opts...)
	if err == nil {
		return c, nil
	}
	if x, ok := card.FindingOf(err); ok && l.ambiguous != nil {
		return nil, l.ambiguous(x)
	}
	if g.json() && l.failed != nil {
		if werr := g.writeJSON(l.failed(err)); werr != nil {
			return nil, fail(ExitUsage, werr)
		}
	}
	return nil, fail(ExitUsage, withHint(err, l.hint))
}
