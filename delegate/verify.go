package delegate

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2abind/a2abind/card"
)

// ErrCardRejected: the card verifier (WithCardVerifier) refused the card, so nothing was
// sent to the agent.
var ErrCardRejected = errors.New("card refused before anything was sent")

// CardVerifier decides whether a loaded card may be used; an error refuses the card.
type CardVerifier func(ctx context.Context, c *card.Card) error

// WithCardVerifier checks the card with v before the Client exists: New and NewFromCard
// fail with an *Error wrapping ErrCardRejected (and v's error) when v refuses it, before
// any call reaches the agent.
func WithCardVerifier(v CardVerifier) Option { return func(o *options) { o.verifier = v } }

// RequireSignature is a CardVerifier that accepts a card only when at least one of its
// signatures verifies (over the spec's canonical form or an SDK's) with the keys the
// options give (card.WithKeySet, card.WithJKUOrigins, ...) and covers every member used
// to connect: a partial signature (card.StatusPartial) is refused, so no interface the
// signature does not cover is ever dialled.
func RequireSignature(opts ...card.VerifyOption) CardVerifier {
	return func(ctx context.Context, c *card.Card) error {
		v, err := card.VerifySignatures(ctx, c, opts...)
		if err != nil {
			return err
		}
		return v.Require()
	}
}

// checkCard runs the verifier, if any, on a loaded card.
func (o *options) checkCard(ctx context.Context, c *card.Card) error {
	if o.verifier == nil {
		return nil
	}
	if err := o.verifier(ctx, c); err != nil {
		agent := c.Location
		if c.Name != "" {
			agent = fmt.Sprintf("%q", c.Name)
		}
		return &Error{Op: "NewClient", Agent: agent, Kind: ErrCardRejected, Err: err}
	}
	return nil
}
