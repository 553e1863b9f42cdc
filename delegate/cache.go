package delegate

import (
	"container/list"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// Cache defaults.
const (
	DefaultCacheSize     = 1024
	DefaultCacheTTL      = 10 * time.Minute
	DefaultCacheCooldown = 30 * time.Second
)

// Cache remembers, per agent, which interface answered last, how each interface was
// called (probe.Way: the route, TLS or plaintext) and which ones failed recently. It is bounded (least recently used agents are evicted), entries expire after
// a TTL, and an entry is dropped when the agent's card changes version or ETag. It is
// safe for concurrent use and can be shared by many Clients (WithCache).
type Cache struct {
	mu       sync.Mutex
	size     int
	ttl      time.Duration
	cooldown time.Duration
	now      func() time.Time
	lru      *list.List // of *cacheEntry, most recent first
	byKey    map[string]*list.Element
	dir      string // "" or where entries are kept on disk too (WithCacheDir)
}

type cacheEntry struct {
	key      string
	version  string
	etag     string
	expires  time.Time
	answered string               // card.Interface.Key() of the interface that answered last
	failed   map[string]time.Time // interface key -> end of its cooldown
	ways     map[string]wayRecord // interface key -> how it was called (route, TLS)
	saved    time.Time            // when it was last written to disk (WithCacheDir)
}

// CacheOption configures NewCache.
type CacheOption func(*Cache)

// WithCacheSize bounds the number of agents remembered (default DefaultCacheSize).
func WithCacheSize(n int) CacheOption { return func(c *Cache) { c.size = max(n, 1) } }

// WithCacheTTL sets how long an agent is remembered (default DefaultCacheTTL).
func WithCacheTTL(d time.Duration) CacheOption { return func(c *Cache) { c.ttl = d } }

// WithCacheCooldown sets how long an interface that failed is tried last (default
// DefaultCacheCooldown).
func WithCacheCooldown(d time.Duration) CacheOption { return func(c *Cache) { c.cooldown = d } }

// withCacheClock replaces time.Now, for tests.
func withCacheClock(now func() time.Time) CacheOption { return func(c *Cache) { c.now = now } }

// NewCache returns an empty cache.
func NewCache(opts ...CacheOption) *Cache {
	c := &Cache{size: DefaultCacheSize, ttl: DefaultCacheTTL, cooldown: DefaultCacheCooldown, now: time.Now,
		lru: list.New(), byKey: map[string]*list.Element{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Len returns the number of agents remembered.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// agentKey identifies an agent: where its card came from and its name. A call restricted by WithBindings (send --binding) remembers apart from unrestricted
// ones, so that forcing a binding once does not become every later call's preference.
func agentKey(cd *card.Card, bindings []a2a.TransportProtocol) string {
	loc := cd.Location
	if loc == "" && len(cd.Interfaces) > 0 {
		loc = cd.Interfaces[0].URL
	}
	key := loc + "\x00" + cd.Name
	for _, b := range bindings {
		key += "\x00" + strings.ToUpper(string(b))
	}
	return key
}

// entry returns the live entry for the card, or nil; stale entries (expired, or for
// another card version or ETag) are removed. An agent not in memory is looked up on
// disk (WithCacheDir). c.mu must be held.
func (c *Cache) entry(cd *card.Card, key string) *cacheEntry {
	el, ok := c.byKey[key]
	if !ok {
		if c.dir == "" {
			return nil
		}
		e := c.loadDisk(key)
		if e == nil || c.stale(cd, e) {
			return nil
		}
		c.insert(e)
		return e
	}
	e := el.Value.(*cacheEntry)
	if c.stale(cd, e) {
		c.lru.Remove(el)
		delete(c.byKey, key)
		return nil
	}
	c.lru.MoveToFront(el)
	return e
}

// stale reports whether e has expired or was learnt from another version or ETag of the card.
func (c *Cache) stale(cd *card.Card, e *cacheEntry) bool {
	return c.now().After(e.expires) || e.version != cd.Version || e.etag != cd.ETag
}

// insert adds e as the most recent entry and evicts the least recent beyond the size.
// c.mu must be held.
func (c *Cache) insert(e *cacheEntry) {
	c.byKey[e.key] = c.lru.PushFront(e)
	for c.lru.Len() > c.size {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.byKey, old.Value.(*cacheEntry).key)
	}
}

// wayRecord is how an interface was called: the Way, and whether a lookup found it
// served that way (Located) rather than the client choosing it from the card and flags.
type wayRecord struct {
	Way     probe.Way
	Located bool
}

// order returns the candidates with the remembered interface first and the cooling
// down ones last, otherwise in their given order.
func (c *Cache) order(cd *card.Card, key string, cands []card.Interface) []card.Interface {
	return c.orderUsable(cd, key, cands, nil)
}

// orderUsable is order, where the remembered interface goes first only when usable
// (nil: always) accepts the way it was called: an interface that answered in plaintext
// under --grpc-plaintext is not put first for a run that may not use plaintext there.
func (c *Cache) orderUsable(cd *card.Card, key string, cands []card.Interface, usable func(card.Interface, probe.Way) bool) []card.Interface {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(cd, key)
	if e == nil {
		return cands
	}
	now := c.now()
	out := make([]card.Interface, 0, len(cands))
	var cooling []card.Interface
	for _, i := range cands {
		k := i.Key()
		w, known := e.ways[k]
		switch {
		case k == e.answered && (usable == nil || !known || usable(i, w.Way)):
			out = append([]card.Interface{i}, out...)
		case now.Before(e.failed[k]):
			cooling = append(cooling, i)
		default:
			out = append(out, i)
		}
	}
	return append(out, cooling...)
}

// way returns how iface was called before, when it is to be trusted: a lookup found it
// served that way, or it is the way the interface that answered last was called.
func (c *Cache) way(cd *card.Card, key string, iface card.Interface) (probe.Way, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(cd, key)
	if e == nil {
		return probe.Way{}, false
	}
	k := iface.Key()
	w, ok := e.ways[k]
	if !ok || (!w.Located && e.answered != k) {
		return probe.Way{}, false
	}
	return w.Way, true
}

// learn notes how iface is called (located: a lookup found it served that way).
func (c *Cache) learn(cd *card.Card, key string, iface card.Interface, w probe.Way, located bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(cd, key)
	if e == nil {
		e = &cacheEntry{key: key, version: cd.Version, etag: cd.ETag, expires: c.now().Add(c.ttl), failed: map[string]time.Time{}}
		c.insert(e)
	}
	k := iface.Key()
	rec := wayRecord{Way: w, Located: located}
	if old, ok := e.ways[k]; ok && (old == rec || old.Located && !located && old.Way == w) {
		return
	}
	if e.ways == nil {
		e.ways = map[string]wayRecord{}
	}
	if len(e.ways) >= maxWays {
		clear(e.ways) // a card's interfaces are bounded; this bounds a misbehaving caller
	}
	e.ways[k] = rec
	if c.dir != "" {
		e.saved = c.now()
		c.saveDisk(e)
	}
}

// maxWays bounds the ways remembered per agent (the interfaces a client calls are
// bounded by addr.Conn.MaxInterfaces; the disk bound is the same).
const maxWays = 1024

// record notes that iface answered (ok) or failed before reaching a handler.
func (c *Cache) record(cd *card.Card, key string, iface card.Interface, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	e := c.entry(cd, key)
	if e == nil {
		e = &cacheEntry{key: key, version: cd.Version, etag: cd.ETag, failed: map[string]time.Time{}}
		c.insert(e)
	}
	if c.dir != "" {
		// Written when it changed, or to push its expiry on once a quarter of the TTL
		// has passed: a steady success costs no write per call. Still under c.mu, so e
		// does not change while it is written.
		answered, failed := e.answered, len(e.failed)
		defer func() {
			if e.answered != answered || len(e.failed) != failed || !ok || now.Sub(e.saved) > c.ttl/4 {
				e.saved = now
				c.saveDisk(e)
			}
		}()
	}
	e.expires = now.Add(c.ttl)
	k := iface.Key()
	if ok {
		e.answered = k
		delete(e.failed, k)
		return
	}
	if e.answered == k {
		e.answered = ""
	}
	for fk, until := range e.failed { // keep the map bounded by the card's interfaces
		if !now.Before(until) {
			delete(e.failed, fk)
		}
	}
	e.failed[k] = now.Add(c.cooldown)
}
