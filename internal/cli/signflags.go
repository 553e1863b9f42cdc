package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/a2abind/a2abind/signature"
)

// signingFlags are the flags that sign a card a command publishes (serve, guard):
// --sign-key, --sign-kid and --jku.
type signingFlags struct {
	// Key is --sign-key: a PEM private key or a private JWK.
	Key string
	// Kid is --sign-kid; JKU is --jku.
	Kid string
	JKU string
}

// register registers the group; what says what is signed, jkuServed where the JWKS is
// served.
func (s *signingFlags) register(fl *pflag.FlagSet, what, jkuServed string) {
	fl.StringVar(&s.Key, "sign-key", "", what+" with this private key (PEM or private JWK)")
	fl.StringVar(&s.Kid, "sign-kid", "", "key ID for the card signature (default: the JWK's kid, else the key's thumbprint)")
	fl.StringVar(&s.JKU, "jku", "", "https URL of the signing key's JWKS, written in the signature; "+jkuServed)
}

// key loads the signing key with its kid; nil when --sign-key is not given. Its errors
// are usage errors naming the flag.
func (s *signingFlags) key() (*signature.SigningKey, error) {
	if s.Key == "" {
		if s.JKU != "" || s.Kid != "" {
			return nil, errors.New("--jku and --sign-kid need --sign-key")
		}
		return nil, nil
	}
	key, err := signature.LoadSigningKey(s.Key)
	if err != nil {
		return nil, fmt.Errorf("--sign-key: %w", err)
	}
	if s.Kid != "" {
		key.KeyID = s.Kid
	}
	return key, nil
}
