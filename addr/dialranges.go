package addr

import (
	"fmt"
	"net/netip"
	"slices"
)

// The address tables of DialPolicy; docs/addresses.md says the same in prose.

// metadataHosts are cloud instance-metadata names: Google, Azure/AWS aliases, Tencent,
// Equinix, IBM and the bare "metadata" short name.
var metadataHosts = map[string]bool{
	"metadata":                     true,
	"metadata.google.internal":     true,
	"metadata.goog":                true,
	"metadata.azure.com":           true,
	"instance-data":                true,
	"instance-data.ec2.internal":   true,
	"metadata.tencentyun.com":      true,
	"metadata.platformequinix.com": true,
	"metadata.ibmcloud.internal":   true,
	"metadata.packet.net":          true,
}

// addrRange is a network and what an address in it is, for a refusal's message.
type addrRange struct {
	prefix netip.Prefix
	why    string
}

func ranges(why string, prefixes ...string) []addrRange {
	r := make([]addrRange, len(prefixes))
	for i, p := range prefixes {
		r[i] = addrRange{netip.MustParsePrefix(p), why}
	}
	return r
}

// metadataRanges are cloud metadata and platform services: outside link-local
// (Alibaba, Azure's WireServer, Oracle Classic; AWS's IPv6 service block, Google's,
// Oracle's and Scaleway's IPv6 metadata), and link-local, where the rest live
// (169.254.169.254, ECS's 169.254.170.2).
var metadataRanges = slices.Concat(
	ranges("a cloud instance-metadata address", "100.100.100.200/32", "168.63.129.16/32", "192.0.0.192/32",
		"fd00:ec2::/32", "fd20:ce::254/128", "fd00:c1::a9fe:a9fe/128", "fd00:42::42/128"),
	ranges("a link-local address (cloud metadata services live there)", "169.254.0.0/16", "fe80::/10"),
)

// MetadataRanges are the link-local ranges and the cloud metadata addresses outside
// them, as NewDialPolicy entries: what the exporter's allow_link_local allows.
func MetadataRanges() []string {
	var s []string
	for _, r := range metadataRanges {
		s = append(s, r.prefix.String())
	}
	return s
}

// refusedRanges are refused by every policy: metadataRanges, unspecified, multicast,
// broadcast, and local-use NAT64 (RFC 8215: the network's own prefix length places its
// IPv4 address, which may be a private one, so no one IPv4 address can be judged).
var refusedRanges = slices.Concat(
	metadataRanges,
	ranges("an unspecified (\"this host\") address, not one a client dials", "0.0.0.0/8", "::/128"),
	ranges("a multicast address", "224.0.0.0/4", "ff00::/8"),
	ranges("the broadcast address", "255.255.255.255/32"),
	ranges("a local-use NAT64 address (RFC 8215), whose IPv4 address may be a private one the prefix length hides", "64:ff9b:1::/48"),
)

// nonPublicRanges are refused by a PublicOnly policy, and as the IPv4 address a
// translated IPv6 form carries: such an address reaches this host, its network or a
// translator's network, never a public agent.
var nonPublicRanges = slices.Concat(
	ranges("a loopback address", "127.0.0.0/8", "::1/128"),
	ranges("a private address", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "fec0::/10"),
	ranges("a shared (carrier-grade NAT) address", "100.64.0.0/10"),
	ranges("a special-purpose address", "192.0.0.0/24", "198.18.0.0/15", "240.0.0.0/4"),
)

// translations are the IPv6 forms that carry an IPv4 address a translator, a tunnel or
// the kernel delivers to: they are judged by that address (IPv4-mapped addresses are
// unmapped before, as the kernel dials them, and judged as the IPv4 address itself).
var translations = []struct {
	prefix netip.Prefix
	name   string
	ipv4   func(b [16]byte) []netip.Addr
}{
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address (RFC 6052)", last32},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "an IPv4-translated address (SIIT, RFC 7915)", last32},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible address (RFC 4291, deprecated)", last32},
	{netip.MustParsePrefix("2002::/16"), "a 6to4 address (RFC 3056)", func(b [16]byte) []netip.Addr {
		return []netip.Addr{netip.AddrFrom4([4]byte(b[2:6]))}
	}},
	{netip.MustParsePrefix("2001::/32"), "a Teredo address (RFC 4380)", func(b [16]byte) []netip.Addr {
		return []netip.Addr{netip.AddrFrom4([4]byte(b[4:8])), // the server
			netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})} // the client, obscured
	}},
}

func last32(b [16]byte) []netip.Addr { return []netip.Addr{netip.AddrFrom4([4]byte(b[12:]))} }

// refusedWhy says why ip (unmapped, without zone) is refused, "" when it is not: by
// refusedRanges, by nonPublicRanges when public, and by the IPv4 address a translated
// form carries, judged as public.
func refusedWhy(ip netip.Addr, public bool) string {
	for _, r := range refusedRanges {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	if public {
		for _, r := range nonPublicRanges {
			if r.prefix.Contains(ip) {
				return r.why
			}
		}
	}
	if ip == netip.IPv6Loopback() {
		return "" // in ::/96, but no IPv4-compatible address
	}
	for _, t := range translations {
		if !t.prefix.Contains(ip) {
			continue
		}
		for _, v4 := range t.ipv4(ip.As16()) {
			if why := refusedWhy(v4, true); why != "" {
				return fmt.Sprintf("%s carrying %s, %s", t.name, v4, why)
			}
		}
	}
	return ""
}
