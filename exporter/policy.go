package exporter

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/discovery"
)

// Target policy: /probe makes the exporter dial whatever a request (and then the card it
// fetches) names, so a scrape must not turn it into a way into the cloud metadata
// service or another host's link-local network, nor into a reader of local files. The
// addresses are refused by addr.DialPolicy (the one dial policy of probe and send), at
// connect time for the card fetch, its redirects and every interface alike.

// maxTargetBytes bounds a /probe target (it is kept in the recent-probes ring).
const maxTargetBytes = 4 << 10

// errNotAllowed marks a /probe target the policy refuses (HTTP 403).
var errNotAllowed = errors.New("target not allowed")

// checkTarget reports whether /probe may probe target: an http or https URL (a card
// file path would make the exporter read local files) without user information
// (credentials belong in module headers), as discovery.CheckTargetURL says, matching
// the allow-list when there is one.
func (c *Config) checkTarget(target string) error {
	if len(target) > maxTargetBytes {
		return fmt.Errorf("%w: the target is %d bytes long, over %d", errNotAllowed, len(target), maxTargetBytes)
	}
	if err := discovery.CheckTargetURL(target); err != nil {
		return fmt.Errorf("%w: %v", errNotAllowed, err)
	}
	if c.matchesAllowed(target) {
		return nil
	}
	return fmt.Errorf("%w: %q matches none of allowed_targets", errNotAllowed, target)
}

// matchesAllowed reports whether u matches one of allowed_targets; true when there
// is no allow-list.
func (c *Config) matchesAllowed(forms ...string) bool {
	if len(c.allowed) == 0 {
		return true
	}
	for _, re := range c.allowed {
		for _, f := range forms {
			if re.MatchString(f) {
				return true
			}
		}
	}
	return false
}

// checkInterface reports whether a probe may go to iface of a card fetched from
// origin: an address on the target's own origin (host and port) may, others must
// match allowed_targets by their URL as declared or by an http(s) form of it (with
// and without the path, the default port left out or written), so a host pattern
// such as 'https://[a-z0-9-]+\.agents\.example\.com(/.*)?' covers a gRPC host:port.
// An interface whose URL does not parse is left to the probe, which reports it.
func (c *Config) checkInterface(origin addr.Origin, iface card.Interface) error {
	if len(c.allowed) == 0 {
		return nil
	}
	a, err := addr.ParseAddress(iface.URL, iface.Binding)
	if err != nil || a.Local() {
		return nil // unreachable or blocked by the probe itself, nothing dialled
	}
	if a.Host == origin.Host && a.Port == origin.Port {
		return nil
	}
	forms := []string{iface.URL}
	for _, tls := range []bool{true, false} {
		if a.TLS == addr.TLSYes && !tls || a.TLS == addr.TLSNo && tls {
			continue
		}
		scheme := "http"
		if tls {
			scheme = "https"
		}
		short := addr.Address{Scheme: scheme, Host: a.Host, Port: a.Port}.Authority() // default port left out
		for _, hp := range []string{short, a.HostPort()} {
			forms = append(forms, scheme+"://"+hp, scheme+"://"+hp+a.Path)
		}
	}
	if c.matchesAllowed(forms...) {
		return nil
	}
	return fmt.Errorf("%w: %s is on another host than the target and matches none of allowed_targets", errNotAllowed, iface.URL)
}

// checkCredentialTarget reports whether a module's headers may go to target: always
// without headers or credential_hosts (then allowed_targets bound the targets, see
// Config.check); with credential_hosts, only a target on one of them.
func (m Module) checkCredentialTarget(target string) error {
	if len(m.Headers) == 0 || len(m.CredentialHosts) == 0 {
		return nil
	}
	if addr.NewCredentialPolicy(addr.Origin{}, m.CredentialHosts...).AllowsURL(target) {
		return nil
	}
	return fmt.Errorf("%w: %q is not on the module's credential_hosts, and its headers go nowhere else", errNotAllowed, target)
}

// scopedTransport refuses requests that leave the target's origin for a URL
// allowed_targets does not match: a card redirect elsewhere is not followed, and
// nothing is sent there.
type scopedTransport struct {
	next   http.RoundTripper
	origin addr.Origin
	cfg    *Config
}

func (s scopedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	u := r.URL.String()
	if o := addr.OriginOf(u); o != s.origin && !s.cfg.matchesAllowed(u) {
		return nil, fmt.Errorf("%w: a redirect to %s leaves the target's origin and matches none of allowed_targets", errNotAllowed, u)
	}
	return s.next.RoundTrip(r)
}
