package cli

import (
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/a2abind/a2abind/addr"
)

// connFlags are the connection flags (addr.Conn): headers, TLS roots, insecure,
// credential hosts, dial policy and the interface bound. probe and send register the
// whole group, lint only its headers; every -H and --cacert is parsed here, by conn.
type connFlags struct {
	// Headers are the -H / --header values, "Name: value".
	Headers []string
	// CAFile is --cacert; Insecure is --insecure.
	CAFile   string
	Insecure bool
	// CredentialHosts are the --credential-host values.
	CredentialHosts []string
	// Allow are the --allow-address values; MaxInterfaces is --max-interfaces.
	Allow         []string
	MaxInterfaces int
}

// addressHelp is the paragraph of probe's and send's help about what they dial.
const addressHelp = `Addresses a card names are not all dialled: unix: and file: sockets, URLs with
user:password@, link-local addresses (169.254.0.0/16, fe80::/10, where cloud metadata
services live), other cloud metadata addresses (168.63.129.16, ...), unspecified
addresses (0.0.0.0, ::), cloud metadata names (metadata.google.internal, ...) and
IPv6 forms carrying a loopback, private or refused IPv4 address (NAT64 64:ff9b::7f00:1,
6to4, Teredo, ...) are refused, by name and again after DNS resolution, with the
outcome "blocked"; nothing is sent there. --allow-address lets one through.
Loopback and private ranges are allowed. At most --max-interfaces interfaces of a card
are used (default 32), so a card with thousands of entries cannot drive a port scan.`

// registerHeaders registers -H / --header alone (lint, which only fetches the card).
func (c *connFlags) registerHeaders(fl *pflag.FlagSet, usage string) {
	fl.StringArrayVarP(&c.Headers, "header", "H", nil, usage)
}

// registerTLS registers --insecure and --cacert alone (lint fetches a card, no more).
func (c *connFlags) registerTLS(fl *pflag.FlagSet) {
	fl.BoolVar(&c.Insecure, "insecure", false, "accept any TLS certificate (self-signed, wrong host)")
	fl.StringVar(&c.CAFile, "cacert", "", "PEM file of CA certificates to trust instead of the system roots")
}

// register registers the whole group; headerUsage is the command's -H help.
func (c *connFlags) register(fl *pflag.FlagSet, headerUsage string) {
	c.registerHeaders(fl, headerUsage)
	fl.StringArrayVar(&c.CredentialHosts, "credential-host", nil, "also send --header values to interfaces on this host or host:port (repeatable)")
	c.registerTLS(fl)
	fl.StringArrayVar(&c.Allow, "allow-address", nil, "dial this refused host, IP or CIDR anyway, e.g. 169.254.10.1 or 0.0.0.0 (repeatable; see above)")
	fl.IntVar(&c.MaxInterfaces, "max-interfaces", addr.DefaultMaxInterfaces, "use at most this many of a card's interfaces")
}

// conn is the connection configuration the flags ask for; its errors are usage errors
// naming the flag. g, unless nil, then hides the header values and the secrets of urls
// (the targets) in every output of the command (globals.hide).
func (c *connFlags) conn(g *globals, urls ...string) (addr.Conn, error) {
	var out addr.Conn
	for _, h := range c.Headers {
		k, v, ok := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return addr.Conn{}, fmt.Errorf("--header %q: want \"Name: value\"", h)
		}
		out.AddHeader(k, v)
	}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return addr.Conn{}, fmt.Errorf("--cacert: %w", err)
		}
		out.RootCAs = x509.NewCertPool()
		if !out.RootCAs.AppendCertsFromPEM(pem) {
			return addr.Conn{}, fmt.Errorf("--cacert %s: no PEM certificate in it", c.CAFile)
		}
	}
	if c.MaxInterfaces < 0 {
		return addr.Conn{}, fmt.Errorf("--max-interfaces %d: want 1 or more (0 is the default, %d)", c.MaxInterfaces, addr.DefaultMaxInterfaces)
	}
	p, err := addr.NewDialPolicy(c.Allow...)
	if err != nil {
		return addr.Conn{}, fmt.Errorf("--allow-address: %w", err)
	}
	out.Insecure, out.Dial, out.MaxInterfaces = c.Insecure, p.Hinted("--allow-address"), c.MaxInterfaces
	out.CredentialHosts = append([]string(nil), c.CredentialHosts...)
	if g != nil {
		g.hide(out.Header, urls...)
	}
	return out, nil
}
