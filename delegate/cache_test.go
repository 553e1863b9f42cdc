package delegate

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

type fakeClock struct{ t time.Time }

func (f *fakeClock) now() time.Time { return f.t }

func keys(ifaces []card.Interface) []string {
	var out []string
	for _, i := range ifaces {
		out = append(out, i.URL)
	}
	return out
}

func TestCache(t *testing.T) {
	a := card.Interface{URL: "a", Binding: "GRPC", ProtocolVersion: "1.0"}
	b := card.Interface{URL: "b", Binding: "JSONRPC", ProtocolVersion: "1.0"}
	c := card.Interface{URL: "c", Binding: "HTTP+JSON", ProtocolVersion: "1.0"}
	cands := []card.Interface{a, b, c}
	agent := &card.Card{Name: "x", Version: "1", ETag: `"e1"`, Location: "http://h/card"}
	key := agentKey(agent, nil)

	tests := []struct {
		name string
		run  func(cache *Cache, clock *fakeClock) []card.Interface
		want []string
	}{
		{"empty cache keeps card order", func(cache *Cache, _ *fakeClock) []card.Interface {
			return cache.order(agent, key, cands)
		}, []string{"a", "b", "c"}},
		{"the interface that answered goes first", func(cache *Cache, _ *fakeClock) []card.Interface {
			cache.record(agent, key, c, true)
			return cache.order(agent, key, cands)
		}, []string{"c", "a", "b"}},
		{"a failed interface cools down last", func(cache *Cache, _ *fakeClock) []card.Interface {
			cache.record(agent, key, a, false)
			return cache.order(agent, key, cands)
		}, []string{"b", "c", "a"}},
		{"the cooldown ends", func(cache *Cache, clock *fakeClock) []card.Interface {
			cache.record(agent, key, a, false)
			clock.t = clock.t.Add(DefaultCacheCooldown + time.Second)
			return cache.order(agent, key, cands)
		}, []string{"a", "b", "c"}},
		{"the entry expires after the TTL", func(cache *Cache, clock *fakeClock) []card.Interface {
			cache.record(agent, key, c, true)
			clock.t = clock.t.Add(DefaultCacheTTL + time.Second)
			return cache.order(agent, key, cands)
		}, []string{"a", "b", "c"}},
		{"a new card version invalidates", func(cache *Cache, _ *fakeClock) []card.Interface {
			cache.record(agent, key, c, true)
			v2 := *agent
			v2.Version = "2"
			return cache.order(&v2, key, cands)
		}, []string{"a", "b", "c"}},
		{"a new ETag invalidates", func(cache *Cache, _ *fakeClock) []card.Interface {
			cache.record(agent, key, c, true)
			e2 := *agent
			e2.ETag = `"e2"`
			return cache.order(&e2, key, cands)
		}, []string{"a", "b", "c"}},
		{"the least recently used agent is evicted", func(cache *Cache, _ *fakeClock) []card.Interface {
			cache.record(agent, key, c, true)
			for _, name := range []string{"y", "z"} {
				other := &card.Card{Name: name, Location: "http://h/" + name}
				cache.record(other, agentKey(other, nil), a, true)
			}
			return cache.order(agent, key, cands)
		}, []string{"a", "b", "c"}},
		{"a failure of the remembered interface forgets it", func(cache *Cache, _ *fakeClock) []card.Interface {
			cache.record(agent, key, c, true)
			cache.record(agent, key, c, false)
			return cache.order(agent, key, cands)
		}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(1_000_000, 0)}
			cache := NewCache(WithCacheSize(2), withCacheClock(clock.now))
			if diff := cmp.Diff(tt.want, keys(tt.run(cache, clock))); diff != "" {
				t.Errorf("order() (-want +got):\n%s", diff)
			}
			if cache.Len() > 2 {
				t.Errorf("Len() = %d, want at most 2", cache.Len())
			}
		})
	}
}

// TestForcedBindingIsNotRemembered: a call restricted to gRPC (send --binding GRPC) is
// remembered apart, so the next unrestricted call still starts with the card's first
// interface (JSON-RPC), not the binding that was forced once.
func TestForcedBindingIsNotRemembered(t *testing.T) {
	ctx := testContext(t)
	a := labtest.Start(t, lab.Healthy()...)
	cache := NewCache()
	var tr Trace
	forced := newTestClient(t, ctx, a.BaseURL, WithCache(cache), WithBindings(lab.GRPC))
	if _, err := forced.SendMessage(WithTrace(ctx, &tr), userMessage("x")); err != nil {
		t.Fatal(err)
	}
	if got := tr.Attempts()[0].Interface.Binding; got != lab.GRPC {
		t.Fatalf("forced call went to %s", got)
	}
	plain := newTestClient(t, ctx, a.BaseURL, WithCache(cache))
	tr = Trace{}
	if _, err := plain.SendMessage(WithTrace(ctx, &tr), userMessage("x")); err != nil {
		t.Fatal(err)
	}
	if got := tr.Attempts()[0].Interface.Binding; got != lab.JSONRPC {
		t.Errorf("after a forced gRPC call, a plain call starts with %s, want the card's first, JSONRPC", got)
	}
}
