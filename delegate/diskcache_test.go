package delegate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestDiskCache: what one Cache learnt is read by another on the same directory, with
// the in-memory rules (TTL, cooldown, card version and ETag).
func TestDiskCache(t *testing.T) {
	a := card.Interface{URL: "a", Binding: "GRPC", ProtocolVersion: "1.0"}
	b := card.Interface{URL: "b", Binding: "JSONRPC", ProtocolVersion: "1.0"}
	c := card.Interface{URL: "c", Binding: "HTTP+JSON", ProtocolVersion: "1.0"}
	cands := []card.Interface{a, b, c}
	agent := &card.Card{Name: "x", Version: "1", ETag: `"e1"`, Location: "http://h/card"}
	key := agentKey(agent, nil)

	tests := []struct {
		name  string
		later func(clock *fakeClock) *card.Card // the card the second process sees, after moving the clock
		want  []string
	}{
		{"another process starts with what answered, the failed one last", func(*fakeClock) *card.Card { return agent }, []string{"b", "c", "a"}},
		{"the cooldown ends on disk too", func(clk *fakeClock) *card.Card { clk.t = clk.t.Add(DefaultCacheCooldown + time.Second); return agent },
			[]string{"b", "a", "c"}},
		{"the TTL ends on disk too", func(clk *fakeClock) *card.Card { clk.t = clk.t.Add(DefaultCacheTTL + time.Second); return agent },
			[]string{"a", "b", "c"}},
		{"a new card version forgets", func(*fakeClock) *card.Card { v := *agent; v.Version = "2"; return &v }, []string{"a", "b", "c"}},
		{"a new ETag forgets", func(*fakeClock) *card.Card { v := *agent; v.ETag = `"e2"`; return &v }, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			clock := &fakeClock{t: time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)}
			first := NewCache(WithCacheDir(dir), withCacheClock(clock.now))
			first.record(agent, key, a, false)
			first.record(agent, key, b, true)

			later := tt.later(clock)
			second := NewCache(WithCacheDir(dir), withCacheClock(clock.now))
			if diff := cmp.Diff(tt.want, keys(second.order(later, agentKey(later, nil), cands))); diff != "" {
				t.Errorf("order in a second cache (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("no directory, no memory across caches", func(t *testing.T) {
		first, second := NewCache(), NewCache()
		first.record(agent, key, b, true)
		if got := keys(second.order(agent, key, cands)); got[0] != "a" {
			t.Errorf("order = %v, want card order", got)
		}
	})
}

// TestDiskCacheIgnoresBadFiles: a corrupt, foreign, oversized or other agent's file is
// ignored, never fatal, and the next record replaces it.
func TestDiskCacheIgnoresBadFiles(t *testing.T) {
	a := card.Interface{URL: "a", Binding: "GRPC", ProtocolVersion: "1.0"}
	b := card.Interface{URL: "b", Binding: "JSONRPC", ProtocolVersion: "1.0"}
	cands := []card.Interface{a, b}
	agent := &card.Card{Name: "x", Version: "1", Location: "http://h/card"}
	key := agentKey(agent, nil)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)

	for name, content := range map[string]string{
		"empty":         "",
		"truncated":     `{"format": "a2abind-delegate-cache/1", "key": `,
		"not JSON":      "\x00\x01\x02 garbage",
		"foreign":       `{"answered": "b"}`,
		"other format":  `{"format": "a2abind-delegate-cache/9", "key": "` + strings.ReplaceAll(key, "\x00", `\u0000`) + `", "version": "1", "expires": "` + future + `", "answered": "b\u0000JSONRPC\u00001.0"}`,
		"other agent":   `{"format": "a2abind-delegate-cache/1", "key": "http://evil/card\u0000x", "version": "1", "expires": "` + future + `", "answered": "b\u0000JSONRPC\u00001.0"}`,
		"wrong types":   `{"format": "a2abind-delegate-cache/1", "key": 7, "expires": "yesterday"}`,
		"over the size": `{"format": "a2abind-delegate-cache/1", "pad": "` + strings.Repeat("x", maxDiskEntryBytes) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			cache := NewCache(WithCacheDir(dir))
			if err := os.WriteFile(cache.diskPath(key), []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := keys(cache.order(agent, key, cands)); got[0] != "a" {
				t.Errorf("order = %v, want card order (the file ignored)", got)
			}
			cache.record(agent, key, b, true)
			if got := keys(NewCache(WithCacheDir(dir)).order(agent, key, cands)); got[0] != "b" {
				t.Errorf("after record, a new cache orders %v, want b first (the file replaced)", got)
			}
		})
	}

	t.Run("the directory cannot be written", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "a-file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		cache := NewCache(WithCacheDir(filepath.Join(file, "sub")))
		cache.record(agent, key, b, true) // must not panic or fail; memory still works
		if got := keys(cache.order(agent, key, cands)); got[0] != "b" {
			t.Errorf("order = %v, want b first from memory", got)
		}
	})
}

// TestDiskCacheSharedByClients: several Clients, each with its own Cache on one
// directory (as separate processes are), send at once through the seed card. Every file
// left is a complete entry, no temporary file is left, and a new Client then makes
// exactly one attempt.
func TestDiskCacheSharedByClients(t *testing.T) {
	seed := labtest.Start(t, lab.Seed()...)
	dir := t.TempDir()
	ctx := testContext(t)

	const clients = 6
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Go(func() {
			c, err := New(ctx, seed.BaseURL, WithCache(NewCache(WithCacheDir(dir))))
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			if _, err := c.SendMessage(ctx, userMessage("hello")); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent send: %v", err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".json") {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("cache directory holds %v, want one entry file and no temporary files", names)
	}

	c := newTestClient(t, ctx, seed.BaseURL, WithCache(NewCache(WithCacheDir(dir))))
	if e := c.cache.loadDisk(c.key); e == nil || e.answered == "" {
		t.Fatalf("the entry on disk is not readable or names no interface: %+v", e)
	}
	var tr Trace
	if _, err := c.SendMessage(WithTrace(ctx, &tr), userMessage("again")); err != nil {
		t.Fatal(err)
	}
	if got := tr.Attempts(); len(got) != 1 || got[0].Interface.Binding != "JSONRPC" {
		t.Errorf("a new client made %d attempts (%v), want exactly one, on JSON-RPC", len(got), got)
	}
}

// FuzzDiskEntry writes arbitrary bytes as an agent's cache file: reading it never
// panics, and an entry is used only when it is a2abind's own, for that agent.
func FuzzDiskEntry(f *testing.F) {
	agent := &card.Card{Name: "x", Version: "1", Location: "http://h/card"}
	key := agentKey(agent, nil)
	f.Add([]byte(`{"format": "a2abind-delegate-cache/1", "key": "http://h/card\u0000x", "version": "1", "expires": "2999-01-01T00:00:00Z", "answered": "b\u0000JSONRPC\u00001.0"}`))
	f.Add([]byte(`{"format": "a2abind-delegate-cache/1", "key": "http://h/card\u0000x", "failed": {"a": "2999-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte("\x00"))
	dir := f.TempDir()
	cache := NewCache(WithCacheDir(dir))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(cache.diskPath(key), data, 0o600); err != nil {
			t.Fatal(err)
		}
		e := cache.loadDisk(key)
		if e != nil && (e.key != key || e.failed == nil || len(e.failed) > maxDiskFailed) {
			t.Fatalf("loadDisk accepted %q as %+v", data, e)
		}
	})
}

// TestDiskCacheStaysBounded: beyond maxDiskEntries files the oldest go, and a temporary
// file a crashed writer left is removed; files that are not the cache's stay.
func TestDiskCacheStaysBounded(t *testing.T) {
	defer func(n int) { maxDiskEntries = n }(maxDiskEntries)
	maxDiskEntries = 20
	pad := func(i int) string { return strings.Repeat("0", 6-len(itoa(i))) + itoa(i) }
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range maxDiskEntries + 5 {
		name := filepath.Join(dir, "old-"+pad(i)+".json")
		if err := os.WriteFile(name, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(name, old, old.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	stale := filepath.Join(dir, ".entry-123.tmp")
	other := filepath.Join(dir, "README")
	for _, p := range []string{stale, other} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	agent := &card.Card{Name: "x", Version: "1", Location: "http://h/card"}
	NewCache(WithCacheDir(dir)).record(agent, agentKey(agent, nil), card.Interface{URL: "b", Binding: "JSONRPC", ProtocolVersion: "1.0"}, true)

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	json, names := 0, map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
		if strings.HasSuffix(e.Name(), ".json") {
			json++
		}
	}
	if json != maxDiskEntries || names["old-000000.json"] || !names["old-"+pad(maxDiskEntries+4)+".json"] {
		t.Errorf("%d entry files (want %d), oldest kept %v", json, maxDiskEntries, names["old-000000.json"])
	}
	if names[".entry-123.tmp"] || !names["README"] {
		t.Errorf("stale temporary file kept %v, foreign file removed %v", names[".entry-123.tmp"], !names["README"])
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestDiskCacheWritesOnChange: a steady success does not rewrite the file on every call;
// a change, or a quarter of the TTL, does.
func TestDiskCacheWritesOnChange(t *testing.T) {
	dir := t.TempDir()
	clock := &fakeClock{t: time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)}
	cache := NewCache(WithCacheDir(dir), withCacheClock(clock.now))
	agent := &card.Card{Name: "x", Version: "1", Location: "http://h/card"}
	key := agentKey(agent, nil)
	a := card.Interface{URL: "a", Binding: "GRPC", ProtocolVersion: "1.0"}
	b := card.Interface{URL: "b", Binding: "JSONRPC", ProtocolVersion: "1.0"}
	path := cache.diskPath(key)
	written := func() string { data, _ := os.ReadFile(path); return string(data) }

	cache.record(agent, key, b, true)
	first := written()
	if first == "" {
		t.Fatal("the first record wrote nothing")
	}
	clock.t = clock.t.Add(time.Minute)
	cache.record(agent, key, b, true)
	if written() != first {
		t.Errorf("the same success a minute later rewrote the file")
	}
	// Another process (a new Cache on the directory) is held to the same rule: each
	// `a2abind send` repeating a success writes nothing.
	NewCache(WithCacheDir(dir), withCacheClock(clock.now)).record(agent, key, b, true)
	if written() != first {
		t.Errorf("the same success in another process a minute later rewrote the file")
	}
	cache.record(agent, key, a, false)
	if written() == first {
		t.Errorf("a failure was not written")
	}
	changed := written()
	clock.t = clock.t.Add(DefaultCacheTTL/4 + time.Second)
	cache.record(agent, key, b, true)
	if written() == changed {
		t.Errorf("after a quarter of the TTL the expiry was not pushed on disk")
	}
}
