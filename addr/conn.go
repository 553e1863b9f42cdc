package addr

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"time"
)

// Conn is the one connection configuration: what the user says about reaching an
// agent, taken as it is by card.Load (WithConn), probe (probe.WithConn) and the
// delegate (delegate.WithConn), and filled by one CLI flag group. The zero Conn is the
// default: no headers, the system roots, certificates verified, the default dial
// policy, credentials for the card's origin only, DefaultMaxInterfaces.
type Conn struct {
	// Header holds the user's headers (credentials such as Authorization). They go on
	// the card fetch to the URL the user named, and to interfaces only where the
	// credential policy (CredentialPolicy, CredentialHosts) allows.
	Header http.Header
	// RootCAs verifies TLS certificates instead of the system roots when not nil.
	RootCAs *x509.CertPool
	// Insecure accepts any TLS certificate (self-signed, wrong host, expired).
	Insecure bool
	// Dial decides which addresses are dialled; nil is the default DialPolicy.
	Dial *DialPolicy
	// CredentialHosts are hosts besides the card's origin that get Header: "host" for
	// any port, or "host:port".
	CredentialHosts []string
	// MaxInterfaces bounds how many of a card's interfaces are used, in card order;
	// 0 or less means DefaultMaxInterfaces.
	MaxInterfaces int
}

// AddHeader adds a header value (repeated keys add values).
func (c *Conn) AddHeader(key, value string) {
	if c.Header == nil {
		c.Header = http.Header{}
	}
	c.Header.Add(key, value)
}

// Interfaces is the bound on interfaces per card: MaxInterfaces, or
// DefaultMaxInterfaces when that is 0 or less.
func (c Conn) Interfaces() int {
	if c.MaxInterfaces <= 0 {
		return DefaultMaxInterfaces
	}
	return c.MaxInterfaces
}

// TLSConfig is the client TLS configuration of the connection settings: RootCAs,
// Insecure, TLS 1.2 or later, and the given server name and ALPN protocols.
func (c Conn) TLSConfig(serverName string, alpn ...string) *tls.Config {
	return &tls.Config{
		ServerName:         serverName,
		RootCAs:            c.RootCAs,
		InsecureSkipVerify: c.Insecure, //nolint:gosec // only when the user asks (--insecure)
		NextProtos:         alpn,
		MinVersion:         tls.VersionTLS12,
	}
}

// Transport is a new HTTP transport for the settings: TLS as TLSConfig says, every
// connection dialled through the dial policy's connect-time check (Dial.Dialer). The
// caller closes its idle connections.
func (c Conn) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = c.TLSConfig("")
	d := c.Dial.Dialer() // a name resolving to a refused address is refused at connect time
	d.Timeout, d.KeepAlive = 30*time.Second, 30*time.Second
	t.DialContext = d.DialContext
	return t
}
