package probe

import (
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// DefaultCapabilityMaxAge is how long an Engine reuses the capability calls it made on
// an interface when WithCapabilityMaxAge does not say. The interface lookups run on
// every check; the capability calls, whose answers change with a deployment rather
// than from one minute to the next, are made again after this long, or at once when
// the card's claims, the interface asked or the credentials change.
const DefaultCapabilityMaxAge = 5 * time.Minute

// maxCachedInterfaces bounds the interfaces whose calls an Engine keeps.
const maxCachedInterfaces = 4096

// WithCapabilityMaxAge sets how long an Engine reuses the capability calls it made on
// an interface (DefaultCapabilityMaxAge); 0 makes them on every check. probe.Check,
// on a fresh Engine, always makes them.
func WithCapabilityMaxAge(d time.Duration) Option {
	return func(o *options) { o.capMaxAge, o.capMaxAgeSet = d, true }
}

// capabilityCache keeps an Engine's capability calls per interface and caller.
type capabilityCache struct {
	mu      sync.Mutex
	entries map[capabilityKey]cachedCalls
}

type cachedCalls struct {
	calls []CapabilityCall
	at    time.Time
}

// capabilityKey is what a capability call's answer depends on: the interface asked
// (and where it is asked, for WithProbeVia), the card's claims and security schemes,
// the card's origin (which decides where credentials go), the connection settings and
// the credentials themselves (hashed).
type capabilityKey struct {
	iface   string
	via     string
	claims  card.Capabilities
	secured bool
	origin  addr.Origin
	conn    connKey
	creds   [sha256.Size]byte
	hosts   string
}

func newCapabilityKey(c *card.Card, iface, local card.Interface, o *options) capabilityKey {
	var h []string
	for k, vs := range o.conn.Header {
		h = append(h, k+"\x00"+strings.Join(vs, "\x00"))
	}
	slices.Sort(h)
	return capabilityKey{
		iface: iface.Key() + "\x00" + iface.Tenant + "\x00" + iface.Source.String(), via: local.URL,
		claims: c.Capabilities, secured: len(c.SecuritySchemes) > 0, origin: c.Origin, conn: o.connKey(),
		creds: sha256.Sum256([]byte(strings.Join(h, "\x01"))), hosts: strings.Join(o.conn.CredentialHosts, "\x00"),
	}
}

// get returns the calls kept for key if they are younger than maxAge.
func (cc *capabilityCache) get(key capabilityKey, maxAge time.Duration) ([]CapabilityCall, bool) {
	if maxAge <= 0 {
		return nil, false
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.entries[key]
	if !ok || time.Since(e.at) >= maxAge {
		return nil, false
	}
	return e.calls, true
}

// put keeps calls for key, dropping expired entries (then any) past the bound.
func (cc *capabilityCache) put(key capabilityKey, calls []CapabilityCall, maxAge time.Duration) {
	if maxAge <= 0 {
		return
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.entries == nil {
		cc.entries = map[capabilityKey]cachedCalls{}
	}
	if len(cc.entries) >= maxCachedInterfaces {
		for k, e := range cc.entries {
			if time.Since(e.at) >= maxAge || len(cc.entries) >= maxCachedInterfaces {
				delete(cc.entries, k)
			}
		}
	}
	cc.entries[key] = cachedCalls{calls: calls, at: time.Now()}
}

// forget drops the calls kept for key.
func (cc *capabilityCache) forget(key capabilityKey) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	delete(cc.entries, key)
}
