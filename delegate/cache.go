package delegate

import (
	"container/list"
	"sync"
	"time"

	"github.com/a2abind/a2abind/card"
)

// Cache defaults.
const (
	DefaultCacheSize     = 1024
	DefaultCacheTTL      = 10 * time.Minute
	DefaultCacheCooldown = 30 * time.Second
)

// Cache remembers, per agent, which interface answered last and which ones failed
// recently. It is bounded (least recently used agents are evicted), entries expire after
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

// agentKey identifies an agent: where its card came from and its name.
func agentKey(cd *card.Card) string {
	loc := cd.Location
	if loc == "" && len(cd.Interfaces) > 0 {
		loc = cd.Interfaces[0].URL
	}
	return loc + "\x00" + cd.Name
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

// order returns the candidates with the remembered interface first and the cooling
// down ones last, otherwise in their given order.
func (c *Cache) order(cd *card.Card, key string, cands []card.Interface) []card.Interface {
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
		switch {
		case k == e.answered:
			out = append([]card.Interface{i}, out...)
		case now.Before(e.failed[k]):
			cooling = append(cooling, i)
		default:
			out = append(out, i)
		}
	}
	return append(out, cooling...)
}

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
