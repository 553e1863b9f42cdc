package exporter

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
)

// Target policy: /probe makes the exporter dial whatever a request (and then the card it
// fetches) names, so a scrape must not turn it into a way into the cloud metadata
// service or another host's link-local network, nor into a reader of local files.

// errNotAllowed marks a /probe target the policy refuses (HTTP 403).
var errNotAllowed = errors.New("target not allowed")

// checkTarget reports whether /probe may probe target: an http or https URL (a card
// file path would make the exporter read local files), without user information
// (credentials belong in module headers), matching the allow-list when there is one.
func (c *Config) checkTarget(target string) error {
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		return fmt.Errorf("%w: %q is not an http:// or https:// URL", errNotAllowed, target)
	}
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("%w: %q: %v", errNotAllowed, target, err)
	}
	if u.User != nil {
		return fmt.Errorf("%w: %q carries user information; put credentials in a module's headers", errNotAllowed, u.Redacted())
	}
	if len(c.allowed) == 0 {
		return nil
	}
	for _, re := range c.allowed {
		if re.MatchString(target) {
			return nil
		}
	}
	return fmt.Errorf("%w: %q matches none of allowed_targets", errNotAllowed, target)
}

// metadataAddrs are cloud metadata endpoints outside the link-local ranges.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),   // AWS instance metadata over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud metadata
}

// deniedAddr says why the exporter will not dial ip, or "" when it may: unspecified
// and multicast addresses always; link-local addresses (169.254.0.0/16 holds the
// metadata endpoint of most clouds) and the other cloud metadata addresses unless
// linkLocal allows them. Loopback and private ranges stay allowed (a fleet inside a
// cluster). This is the one place to swap for the card package's dial policy.
func deniedAddr(ip netip.Addr, linkLocal bool) string {
	ip = ip.Unmap()
	switch {
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast():
		return "multicast"
	case ip.IsLinkLocalUnicast():
		if !linkLocal {
			return "link-local (allow_link_local lets it through)"
		}
		return ""
	}
	if !linkLocal && slices.Contains(metadataAddrs, ip) {
		return "a cloud metadata endpoint (allow_link_local lets it through)"
	}
	return ""
}

// errDenied marks a dial the policy refused. It wraps EHOSTUNREACH: for this exporter
// the address cannot be reached, so the probe's outcome is unreachable (and a card
// fetch fails as card not obtainable), with the policy named in the detail.
var errDenied = fmt.Errorf("refused by the exporter's address policy (%w)", syscall.EHOSTUNREACH)

// dialControl returns the probe engine's dial control: it checks the resolved address
// of every connection (card fetches, redirects and interfaces alike), so a name that
// resolves to a denied address is refused too.
func (c *Config) dialControl() func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot read the address %q", errDenied, address)
		}
		if why := deniedAddr(ap.Addr(), c.AllowLinkLocal); why != "" {
			return fmt.Errorf("%w: %s is %s", errDenied, ap.Addr(), why)
		}
		return nil
	}
}
