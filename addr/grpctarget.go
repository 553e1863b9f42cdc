package addr

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// goGRPCResolvers are the target schemes grpc-go registers by default (resolver.Get
// looks them up after url.Parse has lower-cased the scheme, so "DNS:///" is "dns:///").
var goGRPCResolvers = map[string]bool{"dns": true, "passthrough": true, "unix": true, "unix-abstract": true}

// GoGRPCTarget reports whether grpc-go's client (grpc.NewClient, which a2a-go's gRPC
// transport calls with the card's URL as the target) can resolve target, and why not.
// It follows grpc-go: the target is parsed as a URL and its scheme, compared
// case-insensitively, picks a registered resolver (dns, passthrough, unix,
// unix-abstract); any other target, a bare host:port or a URL with an http, https,
// grpc or grpcs scheme alike, is read as "dns:///" + target, and the DNS resolver then
// needs host[:port] ("https://h:443" fails with "too many colons", and "grpc://h" is
// host "grpc" with port "//h", which no dial takes). It is the one rule
// lint, probe's client-impact prediction and the server's invariant ask.
func GoGRPCTarget(target string) error {
	u, err := url.Parse(target)
	if err == nil && goGRPCResolvers[u.Scheme] {
		if u.Scheme != "dns" {
			return nil
		}
		endpoint := u.Path
		if endpoint == "" {
			endpoint = u.Opaque
		}
		return dnsEndpoint(strings.TrimPrefix(endpoint, "/"), target)
	}
	if _, err := url.Parse("dns:///" + target); err != nil {
		return fmt.Errorf("grpc-go (Go's gRPC client) rejects %q: %v", target, err)
	}
	return dnsEndpoint(target, target)
}

// dnsEndpoint is grpc-go's DNS resolver's reading of an endpoint: an IP, host:port, or
// a host (port 443).
func dnsEndpoint(endpoint, target string) error {
	if endpoint == "" {
		return fmt.Errorf("grpc-go (Go's gRPC client) rejects %q: its DNS resolver finds no address in it", target)
	}
	if _, err := netip.ParseAddr(endpoint); err == nil {
		return nil
	}
	if host, port, err := net.SplitHostPort(endpoint); err == nil {
		if strings.ContainsFunc(host, unicode.IsSpace) {
			return fmt.Errorf("grpc-go (Go's gRPC client) rejects %q: its DNS resolver reads host %q, which no lookup finds", target, host)
		}
		if !dialPort(port) {
			// "grpc://agent" reads as host "grpc", port "//agent": the resolver takes it,
			// and every dial fails.
			return fmt.Errorf("grpc-go (Go's gRPC client) rejects %q: its DNS resolver reads %q as host:port, with port %q", target, endpoint, port)
		}
		return nil
	}
	if _, _, err := net.SplitHostPort(endpoint + ":443"); err != nil {
		return fmt.Errorf("grpc-go (Go's gRPC client) rejects %q: its DNS resolver reads %q as host:port (%v)", target, endpoint, err)
	}
	return nil
}

// dialPort reports a port net.Dial takes: a number, or a service name ("https").
func dialPort(p string) bool {
	if p == "" {
		return false
	}
	if strings.Trim(p, "0123456789") == "" {
		n, err := strconv.Atoi(p)
		return err == nil && n > 0 && n <= 65535
	}
	return strings.Trim(strings.ToLower(p), "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}

// GoGRPCAccepts reports whether Go's gRPC client accepts the address as a dial
// target exactly as written (GoGRPCTarget): surrounding spaces, which ParseAddress
// trims, are part of the target grpc-go reads.
func (a Address) GoGRPCAccepts() bool { return GoGRPCTarget(a.Raw) == nil }
