package addr

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

// DialPolicy decides which addresses a2abind dials for what others name: cards (probe,
// send, the exporter), catalogs and push webhooks. Loopback and private ranges are
// allowed (users test there) unless PublicOnly; unix:, file:, userinfo, link-local,
// unspecified and cloud-metadata addresses are refused unless allowed by name, and so
// is an IPv6 address carrying (NAT64, 6to4, Teredo...) an IPv4 address that is not
// public (docs/addresses.md). The zero DialPolicy is the default policy.
type DialPolicy struct {
	allowHosts    map[string]bool
	allowPrefixes []netip.Prefix
	public        bool
	hint          string // how the user allows a refused address (Hinted)
}

// Hinted returns a copy of p (nil: the default policy) whose refusals say how the user
// allows an address where p is configured: "--allow-address" for the CLI,
// "allow_addresses in the config file" for the exporter. Without it they say nothing.
func (p *DialPolicy) Hinted(how string) *DialPolicy {
	q := &DialPolicy{}
	if p != nil {
		*q = *p
	}
	q.hint = how
	return q
}

// PublicOnly returns p (nil: the default policy) refusing loopback, private, shared and
// special-purpose addresses too: the policy of serve --push's webhooks, which anyone
// who may call the agent names.
func (p *DialPolicy) PublicOnly() *DialPolicy {
	q := &DialPolicy{public: true}
	if p != nil {
		q.allowHosts, q.allowPrefixes = p.allowHosts, p.allowPrefixes
	}
	return q
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

// refusal builds the error of a refused address, with the hint Hinted set.
func (p *DialPolicy) refusal(what, why string) error {
	hint := ""
	if p != nil && p.hint != "" {
		hint = " (allow it with " + p.hint + ")"
	}
	return fmt.Errorf("%w: %s is %s%s", ErrRefusedAddress, what, why, hint)
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
		return p.refusal(host, "a cloud instance-metadata address")
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return p.CheckIP(ip)
	}
	return nil
}

// CheckIP refuses an IP in a refused range, unless allowed: an IPv4-mapped address as
// its IPv4 address, a translated form (NAT64, 6to4...) by the IPv4 address it carries.
func (p *DialPolicy) CheckIP(ip netip.Addr) error {
	ip = ip.WithZone("")
	un := ip.Unmap()
	if p.ipAllowed(ip) || p.ipAllowed(un) {
		return nil
	}
	if why := refusedWhy(un, p != nil && p.public); why != "" {
		return p.refusal(ip.String(), why)
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
