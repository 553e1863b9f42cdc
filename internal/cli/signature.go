package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/signature"
)

// signatureFlags are the card-signature flags lint, probe and send share.
type signatureFlags struct {
	jwks       []string
	jkuOrigins []string
	require    bool
}

func (f *signatureFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.jwks, "jwks", nil, "JWKS file or URL of signer keys")
	fl.StringArrayVar(&f.jkuOrigins, "jku-origin", nil, "follow a jku on this https origin")
	fl.BoolVar(&f.require, "require-signature", false, "fail unless a card signature verifies")
}

// asked reports whether the user asked about signatures at all.
func (f *signatureFlags) asked() bool {
	return f.require || len(f.jwks) > 0 || len(f.jkuOrigins) > 0
}

// options loads the key sets; errors are usage errors (a JWKS that cannot be read).
func (f *signatureFlags) options(ctx context.Context) ([]signature.VerifyOption, error) {
	var opts []signature.VerifyOption
	for _, path := range f.jwks {
		load := func() (*signature.KeySet, error) { return signature.LoadKeySet(path) }
		if strings.HasPrefix(path, "https://") || strings.HasPrefix(path, "http://") {
			load = func() (*signature.KeySet, error) { return signature.FetchKeySet(ctx, path, nil, 0) }
		}
		ks, err := load()
		if err != nil {
			return nil, fmt.Errorf("--jwks: %w", err)
		}
		opts = append(opts, signature.WithKeySet(ks))
	}
	if len(f.jkuOrigins) > 0 {
		opts = append(opts, signature.WithJKUOrigins(f.jkuOrigins...))
	}
	return opts, nil
}

// check verifies c's signatures when the card is signed or the user asked, so that Lint
// reports them; with --require-signature the findings fail unless one verified.
func (f *signatureFlags) check(ctx context.Context, c *card.Card) error {
	opts, err := f.options(ctx)
	if err != nil {
		return err
	}
	if !f.asked() && !signature.Signed(c) {
		return nil
	}
	_, err = signature.VerifySignatures(ctx, c, opts...)
	return err
}

// findings is lint.Lint with --require-signature applied.
func (f *signatureFlags) findings(c *card.Card) []card.Finding {
	findings := lint.Lint(c)
	if f.require {
		findings = lint.RequireSignature(c, findings)
	}
	return findings
}
