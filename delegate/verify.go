package delegate

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/signature"
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

// RequireSignature is a CardVerifier that accepts a card only when one of its signatures
// verifies with the keys the options give (signature.WithKeySet, signature.WithJKUOrigins, ...)
// and covers an interface ((*signature.Verification).Dialable): the client then calls only the
// interfaces the signatures cover (a union card signed over a v1.0 form: its
// supportedInterfaces, never the v0.3 url the signature leaves out).
func RequireSignature(opts ...signature.VerifyOption) CardVerifier {
	return func(ctx context.Context, c *card.Card) error {
		v, err := signature.VerifySignatures(ctx, c, opts...)
		if err != nil {
			return err
		}
		_, err = v.Dialable(c)
		return err
	}
}

// checkCard runs the verifier, if any, on a loaded card, and returns the card to call:
// after a verifier that verified its signatures, only the interfaces they cover.
func (o *options) checkCard(ctx context.Context, c *card.Card) (*card.Card, error) {
	if o.verifier == nil {
		return c, nil
	}
	if err := o.verifier(ctx, c); err != nil {
		agent := c.Location
		if c.Name != "" {
			agent = fmt.Sprintf("%q", c.Name)
		}
		return nil, &Error{Op: "NewClient", Agent: agent, Kind: ErrCardRejected, Err: err}
	}
	if d, err := signature.Of(c).Dialable(c); err == nil {
		return d, nil
	}
	return c, nil // the verifier accepted a card its signatures do not cover: its call
}
