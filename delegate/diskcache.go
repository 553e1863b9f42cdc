package delegate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/a2abind/a2abind/probe"
)

// WithCacheDir keeps the cache on disk too, in dir (one small file per agent), so that
// what one process learnt (the interface that answered, the ones cooling down) serves the
// next process: a misdeclared card costs one failed attempt, not one per run, and how an
// interface answered (the v0.3 HTTP+JSON route, plaintext or TLS gRPC) is not looked up
// again. An entry
// on disk obeys the same TTL, cooldown and card version/ETag check as in memory.
// Files are written atomically (a temporary file renamed into place), so processes
// sharing dir never read a half-written entry; when two write at once, the last one
// wins. A file that cannot be read, is corrupt, or belongs to another agent or format is
// ignored (and replaced on the next write): the disk never makes a call fail.
// DefaultCacheDir is the usual dir.
func WithCacheDir(dir string) CacheOption { return func(c *Cache) { c.dir = dir } }

// DefaultCacheDir returns the per-user cache directory of the delegate,
// os.UserCacheDir()/a2abind/delegate ($XDG_CACHE_HOME/a2abind/delegate on Linux).
func DefaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "a2abind", "delegate"), nil
}

// diskFormat marks a2abind's cache files; a file without it is foreign and ignored.
// 2: with the ways interfaces were called; 3: a v0.3 HTTP+JSON way with prefix "" is
// a2a-go v2.3.1's dialect at {url} (in 2 an unlocated one meant the /v1 routes).
const diskFormat = "a2abind-delegate-cache/3"

// maxDiskEntryBytes bounds what is read of a cache file: an entry lists at most the
// card's interfaces, and a larger file is not one a2abind wrote.
const maxDiskEntryBytes = 256 << 10

// diskEntry is a cacheEntry as stored in a file.
type diskEntry struct {
	Format   string               `json:"format"`
	Key      string               `json:"key"`
	Version  string               `json:"version"`
	ETag     string               `json:"etag"`
	Expires  time.Time            `json:"expires"`
	Answered string               `json:"answered,omitempty"`
	Failed   map[string]time.Time `json:"failed,omitempty"`
	Ways     map[string]diskWay   `json:"ways,omitempty"`
}

// diskWay is a wayRecord as stored in a file.
type diskWay struct {
	Prefix  string `json:"prefix,omitempty"`
	TLS     bool   `json:"tls"`
	Located bool   `json:"located,omitempty"`
}

// diskPath is the file of the agent with key: a hash, so that no part of a card (URL,
// name) becomes a path.
func (c *Cache) diskPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:16])+".json")
}

// loadDisk returns the entry stored for key, or nil when there is none usable.
func (c *Cache) loadDisk(key string) *cacheEntry {
	f, err := os.Open(c.diskPath(key))
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDiskEntryBytes+1))
	if err != nil || len(data) > maxDiskEntryBytes {
		return nil
	}
	var d diskEntry
	if json.Unmarshal(data, &d) != nil || d.Format != diskFormat || d.Key != key {
		return nil
	}
	if len(d.Failed) > maxDiskFailed || len(d.Ways) > maxWays {
		return nil
	}
	// It was written a TTL before it expires: a run soon after that one has nothing to
	// write either (record's quarter-TTL rule holds across runs, not only within one).
	saved := d.Expires.Add(-c.ttl)
	if now := c.now(); saved.After(now) {
		saved = now
	}
	e := &cacheEntry{key: key, version: d.Version, etag: d.ETag, expires: d.Expires, saved: saved, answered: d.Answered, failed: d.Failed}
	for k, w := range d.Ways {
		if !probe.ValidPrefix(w.Prefix) {
			return nil // not a file a2abind wrote: a route must not lead a call elsewhere
		}
		if e.ways == nil {
			e.ways = map[string]wayRecord{}
		}
		e.ways[k] = wayRecord{Way: probe.Way{Prefix: w.Prefix, TLS: w.TLS}, Located: w.Located}
	}
	if e.failed == nil {
		e.failed = map[string]time.Time{}
	}
	return e
}

// maxDiskFailed bounds the cooling-down interfaces read from a file.
const maxDiskFailed = 1024

// saveDisk writes e atomically. Errors are dropped: the disk cache is an optimisation.
func (c *Cache) saveDisk(e *cacheEntry) {
	_ = c.writeDisk(e)
}

func (c *Cache) writeDisk(e *cacheEntry) error {
	d := diskEntry{Format: diskFormat, Key: e.key, Version: e.version, ETag: e.etag,
		Expires: e.expires.UTC(), Answered: e.answered, Failed: e.failed}
	for k, w := range e.ways {
		if d.Ways == nil {
			d.Ways = map[string]diskWay{}
		}
		d.Ways[k] = diskWay{Prefix: w.Way.Prefix, TLS: w.Way.TLS, Located: w.Located}
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, ".entry-*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), c.diskPath(e.key)); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	c.pruneDisk()
	return nil
}

// maxDiskEntries bounds the files kept in the cache directory; beyond it the least
// recently written go first. A variable for tests.
var maxDiskEntries = 4 * DefaultCacheSize

// pruneDisk keeps the directory bounded: it removes temporary files a crashed writer
// left (older than a minute) and, beyond maxDiskEntries entries, the oldest ones.
func (c *Cache) pruneDisk() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, de := range entries {
		info, err := de.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		name := de.Name()
		switch {
		case strings.HasPrefix(name, ".entry-") && strings.HasSuffix(name, ".tmp"):
			if time.Since(info.ModTime()) > time.Minute {
				_ = os.Remove(filepath.Join(c.dir, name))
			}
		case strings.HasSuffix(name, ".json"):
			files = append(files, file{name, info.ModTime()})
		}
	}
	if len(files) <= maxDiskEntries {
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for _, f := range files[:len(files)-maxDiskEntries] {
		_ = os.Remove(filepath.Join(c.dir, f.name))
	}
}
