package delegate

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
)

// Skipped is a declared interface the client will not call, and why.
type Skipped = card.Skipped

// candidates orders the card's interfaces for calling (card.CallOrder, the order probe's
// a2abind-delegate prediction walks too) and drops those whose URL cannot be called.
func candidates(c *card.Card, bindings []a2a.TransportProtocol) (out []card.Interface, skipped []Skipped) {
	ordered, skipped := card.CallOrder(c, bindings)
	for _, iface := range ordered {
		if reason := unusableURL(iface); reason != "" {
			skipped = append(skipped, Skipped{Interface: iface, Reason: reason})
			continue
		}
		out = append(out, iface)
	}
	return out, skipped
}

// unusableURL says why an interface's URL cannot be called, or "".
func unusableURL(iface card.Interface) string {
	if iface.URL == "" {
		return "no url"
	}
	if iface.Binding == a2a.TransportProtocolGRPC {
		if _, _, err := grpcTarget(iface.URL); err != nil {
			return err.Error()
		}
		return ""
	}
	u, err := url.Parse(iface.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("url %q is not an http(s) URL", iface.URL)
	}
	return ""
}

// grpcTarget turns a declared gRPC URL into a grpc-go target. Go's grpc.NewClient needs a
// bare host:port; cards in the wild also write http://, https://, grpc:// or grpcs://
// (other SDKs strip them). tls is +1 when the scheme asks for TLS, -1 for plaintext,
// 0 when it says nothing.
func grpcTarget(raw string) (target string, tls int, err error) {
	s := raw
	for _, p := range []struct {
		prefix string
		tls    int
	}{{"https://", 1}, {"grpcs://", 1}, {"http://", -1}, {"grpc://", -1}} {
		if rest, ok := strings.CutPrefix(strings.ToLower(s), p.prefix); ok {
			s, tls = s[len(s)-len(rest):], p.tls
			break
		}
	}
	s = strings.TrimSuffix(s, "/")
	if strings.Contains(s, "://") {
		return s, 0, nil // another resolver scheme (dns:///, unix://): leave it to grpc-go
	}
	if _, _, err := net.SplitHostPort(s); err != nil {
		return "", 0, fmt.Errorf("gRPC url %q is not host:port", raw)
	}
	return s, tls, nil
}

// origin is the scheme-less host:port credentials are scoped to, with the default port
// of the scheme filled in.
func origin(raw string) string {
	if !strings.Contains(raw, "://") {
		return strings.ToLower(strings.TrimSuffix(raw, "/"))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https", "grpcs":
			port = "443"
		case "http", "grpc":
			port = "80"
		}
	}
	if host == "" {
		return ""
	}
	return strings.ToLower(net.JoinHostPort(host, port))
}

// cardOrigin is the origin of the card itself: where it was fetched from, or, for a card
// file, the host of its preferred (first) interface.
func cardOrigin(c *card.Card) string {
	if strings.HasPrefix(c.Location, "http://") || strings.HasPrefix(c.Location, "https://") {
		return origin(c.Location)
	}
	for _, i := range c.Interfaces {
		if i.Preferred {
			return ifaceOrigin(i)
		}
	}
	if len(c.Interfaces) > 0 {
		return ifaceOrigin(c.Interfaces[0])
	}
	return ""
}

func ifaceOrigin(i card.Interface) string {
	if b, _ := card.CanonicalBinding(i.Binding); b == a2a.TransportProtocolGRPC {
		if t, _, err := grpcTarget(i.URL); err == nil {
			return strings.ToLower(t)
		}
	}
	return origin(i.URL)
}
