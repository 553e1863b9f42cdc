package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/signature"
)

func init() { register(newCmdSign) }

// signOptions are the options of `a2abind sign`, from its flags and argument.
type signOptions struct {
	g *globals
	// Target is the CARD argument.
	Target string
	// KeyFile, Kid, JKU, Alg and Replace are --key, --kid, --jku, --alg and --replace.
	KeyFile, Kid, JKU, Alg string
	Replace                bool
}

// newCmdSign builds the sign command; runF, when not nil, replaces signRun.
func newCmdSign(g *globals, runF func(*signOptions) error) *cobra.Command {
	opts := &signOptions{g: g}
	cmd := &cobra.Command{
		Use:   "sign CARD --key FILE",
		Short: "Sign an AgentCard (A2A 1.0 §8.4 detached JWS) and print the signed card",
		Long: `Sign canonicalises CARD as A2A 1.0 §8.4.1 says (proto presence rules, RFC 8785,
the signatures field left out) and signs it with the private key of --key as a
detached JWS whose protected header carries alg, typ "JOSE", kid and optionally
jku, and prints the card with the signature added to signatures. Every other
field keeps its order and value.

A v0.3 or union card's url, preferredTransport, additionalInterfaces and
protocolVersion are not fields of the v1.0 card, so the proto form leaves them
out. For such a card sign signs the card as written (RFC 8785, signatures left
out: the no-presence form, the reading of §8.4.1 the A2A TCK's signing vectors
use), which covers them, and says so on standard error: a signature must cover
where clients connect.

--key is a PEM private key (PKCS#8, SEC 1 EC or PKCS#1 RSA) or a private JWK.
P-256 keys sign ES256, Ed25519 keys EdDSA, RSA keys RS256 (or PS256 with --alg
PS256). The kid is the key's RFC 7638 thumbprint unless --kid (or the JWK's kid)
says otherwise.

When a2a-js 1.3.0 canonicalises the card to other bytes (it drops fields outside
the v1.0 schema and strips empty values), sign adds a second signature, same
key, over a2a-js's form, so that a2a-js (which accepts a card when any one
signature verifies) verifies it too; only when that form covers every
supportedInterfaces entry and the security schemes, since a2a-js dials those.

CARD is a file, "-" for standard input, or a URL, as for lint.`,
		Example: `  a2abind key generate signer.pem && a2abind key jwks signer.pem > jwks.json
  a2abind sign card.json --key signer.pem > card.signed.json
  a2abind sign card.json --key signer.jwk --kid 2026-12 \
    --jku https://agent.example.com/.well-known/jwks.json
  a2abind lint card.signed.json --jwks jwks.json --require-signature`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fail(ExitUsage, fmt.Errorf("sign needs one CARD (a file, a URL or -), got %d arguments; see a2abind sign --help", len(args)))
			}
			if opts.KeyFile == "" {
				return fail(ExitUsage, fmt.Errorf("sign needs --key FILE (a PEM private key or a private JWK)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			if runF != nil {
				return runF(opts)
			}
			return signRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.KeyFile, "key", "", "private key file: PEM (PKCS#8, EC, RSA) or a private JWK")
	fl.StringVar(&opts.Kid, "kid", "", "key ID to write (default: the kid a2abind key jwks prints)")
	fl.StringVar(&opts.JKU, "jku", "", "https URL of the JWKS holding the public key (header jku)")
	fl.StringVar(&opts.Alg, "alg", "", "JWS algorithm: "+strings.Join([]string{"ES256", "RS256", "PS256", "EdDSA"}, ", "))
	fl.BoolVar(&opts.Replace, "replace", false, "drop the card's signatures instead of adding to them")
	return cmd
}

// signRun signs the card with the key and prints the signed card.
func signRun(parent context.Context, opts *signOptions) error {
	g := opts.g
	key, err := signature.LoadSigningKey(opts.KeyFile)
	if err != nil {
		return fail(ExitUsage, fmt.Errorf("--key: %w", err))
	}
	if opts.Alg != "" {
		if key, err = key.WithAlgorithm(opts.Alg); err != nil {
			return fail(ExitUsage, fmt.Errorf("--alg: %w", err))
		}
	}
	ctx, cancel := g.context(parent)
	defer cancel()
	c, err := loadCard(ctx, g, cardLoad{hint: hintContext{command: "sign", target: opts.Target}})
	if err != nil {
		return err
	}
	signOpts := []signature.SignOption{}
	if opts.Kid != "" {
		signOpts = append(signOpts, signature.WithSignKeyID(opts.Kid))
	}
	if opts.JKU != "" {
		signOpts = append(signOpts, signature.WithSignJKU(opts.JKU))
	}
	if opts.Replace {
		signOpts = append(signOpts, signature.WithReplaceSignatures())
	}
	signed, err := signature.Sign(c.Document(), key, signOpts...)
	if err != nil {
		return fail(ExitUsage, err)
	}
	forms, missed, _ := signature.SignForms(c.Document()) // Sign succeeded: no error
	if forms[0] == signature.FormSpec {
		fmt.Fprintln(g.stderr, "a2abind: signed the spec canonical form (A2A 1.0 §8.4.1)")
	} else {
		fmt.Fprintf(g.stderr, "a2abind: signed the %s canonical form (the card as written, as the A2A TCK's vectors sign it): the spec form does not cover %s, which clients use to connect\n",
			forms[0], strings.Join(missed, ", "))
	}
	if len(forms) > 1 {
		fmt.Fprintf(g.stderr, "a2abind: added a signature over the %s canonical form, which a2a-js 1.3.0 verifies (it canonicalises this card to other bytes)\n", forms[1])
	}
	_, err = g.stdout.Write(signed)
	return err
}
