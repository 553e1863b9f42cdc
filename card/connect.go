package card

import (
	"github.com/a2abind/a2abind/addr"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// How a card meets the connection settings: the load option, the origin the user named,
// and the credential policy for its interfaces.

// WithConn fetches cards with the connection settings c: its headers on the fetch (as
// WithHeader), and, unless WithHTTPClient gives a client, a transport of its TLS
// settings and dial policy (closed when the fetch is done). It replaces the settings
// of an earlier WithConn; WithHeader after it adds headers.
func WithConn(c addr.Conn) Option {
	return func(o *loadOptions) {
		o.conn, o.hasConn = c, true
		o.header = c.Header.Clone()
	}
}

// CardCredentials is the credential policy for the interfaces of c: the origin the user
// named when the card was fetched (before any redirect), else, for a card file, the
// address of its preferred (or first) interface (AddressCredentials); plus the allowed
// hosts.
func CardCredentials(c *Card, allowHosts ...string) addr.CredentialPolicy {
	return CardCredentialsWith(c, addr.ParseAddress, allowHosts...)
}

// CardCredentialsWith is CardCredentials reading the interface address with parse:
// ParseAddress itself, or a caller's memo of it (the probe's, which has read every
// interface of the card already).
func CardCredentialsWith(c *Card, parse func(raw string, b a2a.TransportProtocol) (addr.Address, error), allowHosts ...string) addr.CredentialPolicy {
	if c == nil {
		return addr.NewCredentialPolicy(addr.Origin{}, allowHosts...)
	}
	if !c.Origin.IsZero() {
		return addr.NewCredentialPolicy(c.Origin, allowHosts...)
	}
	if o := addr.OriginOf(c.Location); !o.IsZero() {
		return addr.NewCredentialPolicy(o, allowHosts...)
	}
	pick := -1
	for n, i := range c.Interfaces {
		if i.Preferred {
			pick = n
			break
		}
	}
	if pick < 0 && len(c.Interfaces) > 0 {
		pick = 0
	}
	if pick < 0 {
		return addr.NewCredentialPolicy(addr.Origin{}, allowHosts...)
	}
	a, err := parse(c.Interfaces[pick].URL, c.Interfaces[pick].Binding)
	if err != nil {
		return addr.NewCredentialPolicy(addr.Origin{}, allowHosts...)
	}
	return addr.AddressCredentials(a, allowHosts...)
}

// NamedOrigin is the origin of a card as the user named it: its Origin, else the
// origin of where it was read from (zero for a file or standard input).
func NamedOrigin(c *Card) addr.Origin {
	if !c.Origin.IsZero() {
		return c.Origin
	}
	return addr.OriginOf(c.Location)
}
