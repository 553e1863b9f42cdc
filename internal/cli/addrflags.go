package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/probe"
)

// addressFlags are the dial-policy and interface-bound flags probe and send share.
type addressFlags struct {
	allow         []string
	maxInterfaces int
}

// addressHelp is the paragraph of probe's and send's help about what they dial.
const addressHelp = `Addresses a card names are not all dialled: unix: and file: sockets, URLs with
user:password@, link-local addresses (169.254.0.0/16, fe80::/10, where cloud metadata
services live), unspecified addresses (0.0.0.0, ::) and cloud metadata names
(metadata.google.internal, ...) are refused, by name and again after DNS resolution,
with the outcome "blocked"; nothing is sent there. --allow-address lets one through.
Loopback and private ranges are allowed. At most --max-interfaces interfaces of a card
are used (default 32), so a card with thousands of entries cannot drive a port scan.`

func (a *addressFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&a.allow, "allow-address", nil, "dial this refused host, IP or CIDR anyway, e.g. 169.254.10.1 or 0.0.0.0 (repeatable; see above)")
	fl.IntVar(&a.maxInterfaces, "max-interfaces", 32, "use at most this many of a card's interfaces (0: the default)")
}

// policy is the dial policy the flags ask for.
func (a *addressFlags) policy() (*card.DialPolicy, error) {
	if a.maxInterfaces < 0 {
		return nil, fmt.Errorf("--max-interfaces %d: want 1 or more (0 is the default, 32)", a.maxInterfaces)
	}
	p, err := card.NewDialPolicy(a.allow...)
	if err != nil {
		return nil, fmt.Errorf("--allow-address: %w", err)
	}
	return p, nil
}

// probeOptions are the probe options of the flags.
func (a *addressFlags) probeOptions(p *card.DialPolicy) []probe.Option {
	return []probe.Option{probe.WithDialPolicy(p), probe.WithMaxInterfaces(a.maxInterfaces)}
}

// delegateOptions are the delegate options of the flags.
func (a *addressFlags) delegateOptions(p *card.DialPolicy) []delegate.Option {
	return []delegate.Option{delegate.WithDialPolicy(p), delegate.WithMaxInterfaces(a.maxInterfaces)}
}
