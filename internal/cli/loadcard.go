package cli

import (
	"context"

	"github.com/a2abind/a2abind/card"
)

// loadCard is how a command reads the card TARGET names (hc.target): a file, "-" for
// standard input, a card URL or a base URL. It is the one place a card that cannot be
// obtained becomes exit status 2 with a hint saying what to do next, and, with -o json,
// the command's JSON document for the failure (failed builds it; nil for none). The
// card fetch keeps its own 10 s bound unless --timeout was given (timeoutSet).
func loadCard(ctx context.Context, g *globals, hc hintContext, timeoutSet bool, opts []card.Option, failed func(error) any) (*card.Card, error) {
	opts = append([]card.Option{card.WithStdin(g.stdin)}, opts...)
	if timeoutSet && g.timeout > 0 {
		opts = append(opts, card.WithTimeout(g.timeout))
	}
	c, err := card.Load(ctx, hc.target, opts...)
	if err == nil {
		return c, nil
	}
	if g.json() && failed != nil {
		if werr := g.writeJSON(failed(err)); werr != nil {
			return nil, fail(ExitUsage, werr)
		}
	}
	return nil, fail(ExitUsage, withHint(err, hc))
}
