package exporter

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
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
