package card

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrRefusedAddress is matched (errors.Is) by every refusal of the dial policy: an
// address a2abind will not dial because a card named it. Nothing was sent there.
var ErrRefusedAddress = errors.New("a2abind does not dial this address")

// metadataHosts are cloud instance-metadata names (the IPs are link-local and refused
// by range): Google, Azure/AWS aliases, Alibaba, Oracle, and the bare "metadata" short name.
var metadataHosts = map[string]bool{
	"metadata":                     true,
	"metadata.google.internal":     true,
	"metadata.goog":                true,
	"metadata.azure.com":           true,
	"instance-data":                true,
	"instance-data.ec2.internal":   true,
	"metadata.tencentyun.com":      true,
	"metadata.platformequinix.com": true,
	"100.100.100.200":              true, // Alibaba Cloud (not link-local)
	"fd00:ec2::254":                true, // AWS IPv6 metadata (unique-local)
	"metadata.ibmcloud.internal":   true,
	"metadata.packet.net":          true,
}

// metadataIPs are the IP literals among metadataHosts, for CheckIP to look up without
// formatting each address it checks.
var metadataIPs = func() map[netip.Addr]bool {
	m := map[netip.Addr]bool{}
	for h := range metadataHosts {
		if ip, err := netip.ParseAddr(h); err == nil {
			m[ip] = true
		}
	}
	return m
}()

// refusedPrefixes are networks a2abind does not dial for a card: link-local (cloud
// metadata lives there), unspecified, multicast and broadcast (IPv4-mapped forms are
// unmapped before the check).
var refusedPrefixes = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address (cloud metadata services live there)"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified (\"this host\") address, not one a client dials"},
	{netip.MustParsePrefix("::/128"), "the unspecified address, not one a client dials"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
}

// DialPolicy decides which addresses probe and delegate dial. Loopback and private
// ranges are allowed (users test there); unix:, file:, userinfo, link-local,
// unspecified and cloud-metadata addresses are refused unless allowed by name. The zero
// DialPolicy is the default policy.
type DialPolicy struct {
	allowHosts    map[string]bool
	allowPrefixes []netip.Prefix
}

// NewDialPolicy returns the default policy, with the given entries allowed: a host name
// ("metadata.google.internal"), an IP ("169.254.10.1") or a CIDR ("169.254.0.0/16").
// It fails on an entry that is none of these.
func NewDialPolicy(allow ...string) (*DialPolicy, error) {
	p := &DialPolicy{allowHosts: map[string]bool{}}
	for _, e := range allow {
		e = strings.ToLower(strings.Trim(strings.TrimSpace(e), "[]"))
		if e == "" {
			continue
		}
		if pfx, err := netip.ParsePrefix(e); err == nil {
			p.allowPrefixes = append(p.allowPrefixes, pfx.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(e); err == nil {
			p.allowPrefixes = append(p.allowPrefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		if checkHost(e) != "" || strings.Contains(e, ":") {
			return nil, fmt.Errorf("allowed address %q is not a host name, IP address or CIDR", e)
		}
		p.allowHosts[strings.TrimSuffix(e, ".")] = true
	}
	return p, nil
}

func (p *DialPolicy) hostAllowed(host string) bool {
	return p != nil && p.allowHosts[strings.TrimSuffix(host, ".")]
}

func (p *DialPolicy) ipAllowed(ip netip.Addr) bool {
	if p == nil {
		return false
	}
	for _, pfx := range p.allowPrefixes {
		if pfx.Contains(ip) {
			return true
		}
	}
	return false
}

// refusal builds the error of a refused address.
func refusal(what, why string) error {
	return fmt.Errorf("%w: %s is %s (allow it with --allow-address)", ErrRefusedAddress, what, why)
}

// Check refuses, from the address alone, what a2abind does not dial: local sockets and
// files, userinfo, cloud-metadata names and refused IP literals. A nil *DialPolicy is
// the default policy.
func (p *DialPolicy) Check(a Address) error {
	switch {
	case a.Local():
		return fmt.Errorf("%w: %s: is a local %s: address; a2abind dials only network addresses a card names", ErrRefusedAddress, a.Raw, a.Scheme)
	case a.UserInfo:
		return fmt.Errorf("%w: %s: carries user:password@ credentials in the URL; a2abind does not send them", ErrRefusedAddress, a.Raw)
	}
	return p.CheckHost(a.Host)
}

// CheckHost refuses a host name or IP literal the policy refuses (without resolving it).
func (p *DialPolicy) CheckHost(host string) error {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if metadataHosts[h] && !p.hostAllowed(h) {
		return refusal(host, "a cloud instance-metadata address")
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return p.CheckIP(ip)
	}
	return nil
}

// CheckIP refuses an IP in a refused range (the IPv4-mapped form included), unless allowed.
func (p *DialPolicy) CheckIP(ip netip.Addr) error {
	ip = ip.WithZone("")
	un := ip.Unmap()
	if p.ipAllowed(ip) || p.ipAllowed(un) {
		return nil
	}
	if metadataIPs[un] {
		return refusal(ip.String(), "a cloud instance-metadata address")
	}
	for _, r := range refusedPrefixes {
		if r.prefix.Contains(un) {
			return refusal(ip.String(), r.why)
		}
	}
	return nil
}

// CheckResolved resolves a host name and refuses it when any of its addresses is
// refused (a DNS name pointing at 169.254.169.254, say). A name that does not resolve
// is left to the dial to report. IP literals are checked without a lookup.
func (p *DialPolicy) CheckResolved(ctx context.Context, host string) error {
	if err := p.CheckHost(host); err != nil {
		return err
	}
	return p.checkResolved(ctx, host)
}

// CheckDial is what is asked before a dial to a: Check, then, for a host name, what
// CheckResolved asks of the addresses it resolves to.
func (p *DialPolicy) CheckDial(ctx context.Context, a Address) error {
	if err := p.Check(a); err != nil {
		return err
	}
	return p.checkResolved(ctx, a.Host)
}

// checkResolved is CheckResolved after CheckHost.
func (p *DialPolicy) checkResolved(ctx context.Context, host string) error {
	if _, err := netip.ParseAddr(host); err == nil || host == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, ip := range ips {
		if err := p.CheckIP(ip); err != nil {
			return fmt.Errorf("%s resolves to %s: %w", host, ip, err)
		}
	}
	return nil
}

// Control is a net.Dialer Control function: it refuses, at dial time, a connection to a
// refused IP, whatever name resolved to it.
func (p *DialPolicy) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil // not an IP:port (a unix socket is refused earlier, by name)
	}
	return p.CheckIP(ap.Addr())
}

// Dialer returns a net.Dialer whose dials go through Control.
func (p *DialPolicy) Dialer() *net.Dialer {
	return &net.Dialer{Control: p.Control}
}
