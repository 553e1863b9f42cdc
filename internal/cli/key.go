package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/signature"
)

func init() { register(newCmdKey) }

// keyOptions are the options of `a2abind key generate` and `a2abind key jwks`.
type keyOptions struct {
	g *globals
	// Sub is the subcommand: "generate" or "jwks".
	Sub string
	// Files are the arguments: the file generate writes, or the keys jwks reads.
	Files []string
	// Type and Bits are generate's --type and --bits.
	Type string
	Bits int
}

// newCmdKey builds the key command and its subcommands; runF, when not nil, replaces
// keyGenerateRun and keyJWKSRun.
func newCmdKey(g *globals, runF func(*keyOptions) error) *cobra.Command {
	opts := &keyOptions{g: g}
	run := func(sub string, xRun func(*keyOptions) error) func(*cobra.Command, []string) error {
		return func(_ *cobra.Command, args []string) error {
			opts.Sub, opts.Files = sub, args
			if runF != nil {
				return runF(opts)
			}
			return xRun(opts)
		}
	}
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Generate card-signing keys and print their public JWKS",
		Long: `Key makes the keys sign and serve --sign-key use, and the JWKS that lint,
probe and send --jwks read, so that the three agree on each key's kid.

The kid of a key is its RFC 7638 thumbprint (or, for a private JWK, its own
kid): key jwks prints it, and sign writes it unless --kid says otherwise.`,
		Example: `  a2abind key generate signer.pem
  a2abind key jwks signer.pem > jwks.json
  a2abind sign card.json --key signer.pem > card.signed.json
  a2abind lint card.signed.json --jwks jwks.json --require-signature`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newKeyGenerateCmd(opts, run("generate", keyGenerateRun)), newKeyJWKSCmd(run("jwks", keyJWKSRun)))
	return cmd
}

func newKeyGenerateCmd(opts *keyOptions, run func(*cobra.Command, []string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "generate FILE",
		Short: "Write a new private signing key (PKCS#8 PEM, mode 0600)",
		Long: `Generate writes a new private key to FILE as PKCS#8 PEM, readable by its owner
only (0600), and prints its algorithm and kid. It never overwrites a file.

--type ec (the default) makes a P-256 key, which signs ES256; ed25519 signs
EdDSA; rsa signs RS256 (3072 bits unless --bits says otherwise, 2048 to 8192;
--bits goes with --type rsa only).`,
		Example: `  a2abind key generate signer.pem
  a2abind key generate --type ed25519 signer.pem`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return argsError("key generate", "one FILE to write the key to", len(args))
			}
			return nil
		},
		RunE: run,
	}
	cmd.Flags().StringVar(&opts.Type, "type", signature.KeyEC, "key type: ec (P-256), ed25519 or rsa")
	cmd.Flags().IntVar(&opts.Bits, "bits", 0, "RSA modulus size in bits, 2048 to 8192 (default 3072; --type rsa only)")
	return cmd
}

func newKeyJWKSCmd(run func(*cobra.Command, []string) error) *cobra.Command {
	return &cobra.Command{
		Use:   "jwks KEY...",
		Short: "Print the public JWKS of private keys, each with its kid",
		Long: `Jwks prints the JSON Web Key Set holding the public part of each KEY (a PEM
private key or a private JWK), each with the kid sign writes for it by default,
its alg and use "sig": serve it at a signature's jku URL, or pass it to lint,
probe and send with --jwks.`,
		Example: `  a2abind key jwks signer.pem > jwks.json
  a2abind key jwks old.pem new.pem > jwks.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return argsError("key jwks", "at least one KEY file", 0)
			}
			return nil
		},
		RunE: run,
	}
}

// keyGenerateRun writes a new private key to the file and prints its algorithm and kid.
func keyGenerateRun(opts *keyOptions) error {
	g, file := opts.g, opts.Files[0]
	k, err := signature.GenerateSigningKey(opts.Type, opts.Bits)
	if err != nil {
		return fail(ExitUsage, fmt.Errorf("--type/--bits: %w", err))
	}
	pem, err := k.PrivatePEM()
	if err != nil {
		return fail(ExitUsage, err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fail(ExitUsage, fmt.Errorf("%s exists: key generate never overwrites a key; choose another FILE or remove it first", file))
	}
	if err != nil {
		return fail(ExitUsage, err)
	}
	if _, err := f.Write(pem); err != nil {
		_ = f.Close()
		_ = os.Remove(file)
		return fail(ExitUsage, err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(file)
		return fail(ExitUsage, err)
	}
	if g.json() {
		return g.writeJSON(map[string]string{"file": file, "alg": k.Algorithm, "kid": k.KeyID})
	}
	fmt.Fprintf(g.stdout, "wrote %s: %s key, kid %s\n", file, k.Algorithm, k.KeyID)
	return nil
}

// keyJWKSRun prints the public JWKS of the keys.
func keyJWKSRun(opts *keyOptions) error {
	g := opts.g
	keys := make([]*signature.SigningKey, 0, len(opts.Files))
	for _, path := range opts.Files {
		k, err := signature.LoadSigningKey(path)
		if err != nil {
			return fail(ExitUsage, err)
		}
		keys = append(keys, k)
	}
	set, err := signature.PublicJWKS(keys...)
	if err != nil {
		return fail(ExitUsage, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, set, "", "  "); err != nil {
		return fail(ExitUsage, err)
	}
	out.WriteByte('\n')
	_, err = g.stdout.Write(out.Bytes())
	return err
}
