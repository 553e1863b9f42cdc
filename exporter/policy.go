package exporter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
)

// Target policy: /probe makes the exporter dial whatever a request (and then the card it
// fetches) names, so a scrape must not turn it into a way into the cloud metadata
// service or another host's link-local network, nor into a reader of local files. The
// addresses are refused by card.DialPolicy (the one dial policy of probe and send), at
// connect time for the card fetch, its redirects and every interface alike.

// errNotAllowed marks a /probe target the policy refuses (HTTP 403).
var errNotAllowed = errors.New("target not allowed")

// checkTarget reports whether /probe may probe target: an http or https URL (a card
// file path would make the exporter read local files), without user information
// (credentials belong in module headers), matching the allow-list when there is one.
func (c *Config) checkTarget(target string) error {
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		return fmt.Errorf("%w: %q is not an http:// or https:// URL", errNotAllowed, target)
	}
	a, err := card.ParseAddress(target, a2a.TransportProtocolJSONRPC)
	if err != nil {
		return fmt.Errorf("%w: %v", errNotAllowed, err)
	}
	if a.UserInfo {
		return fmt.Errorf("%w: %q carries user information; put credentials in a module's headers", errNotAllowed, a.Rewrite("", a.HostPort()))
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
