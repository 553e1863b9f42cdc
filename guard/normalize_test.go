package guard_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// results gives each interface of c the outcome out says, as probe.Card would.
func results(c *card.Card, out func(card.Interface) wire.Outcome) []probe.Result {
	var rs []probe.Result
	for _, i := range c.Interfaces {
		rs = append(rs, probe.Result{Interface: i, Outcome: out(i)})
	}
	return rs
}

// servedAt marks served the interfaces whose "BINDING URL" is listed, everything else
// handler_missing.
func servedAt(list ...string) func(card.Interface) wire.Outcome {
	return func(i card.Interface) wire.Outcome {
		for _, s := range list {
			if s == string(i.Binding)+" "+i.URL {
				return wire.Served
			}
		}
		return wire.HandlerMissing
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	const sig = `"signatures":[{"protected":"eyJhbGciOiJFUzI1NiJ9","signature":"c2ln"}]`
	for _, tt := range []struct {
		name     string
		doc      string
		outcome  func(card.Interface) wire.Outcome
		want     map[string]any // top-level fields of the result that matter (nil: absent)
		unchange bool
		removed  int
		sigs     int
	}{{
		name: "v1.0: unserved entries removed, the first served one becomes the preferred",
		doc: `{"name":"a","x-vendor":{"keep":[1,2]},"supportedInterfaces":[
			{"url":"http://h:1","protocolBinding":"GRPC","protocolVersion":"1.0"},
			{"url":"http://h:1/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0","x-entry":"kept"},
			{"url":"h:2","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`,
		outcome: servedAt("JSONRPC http://h:1/rpc"),
		want: map[string]any{"x-vendor": map[string]any{"keep": []any{1.0, 2.0}}, "supportedInterfaces": []any{
			map[string]any{"url": "http://h:1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "x-entry": "kept"}}},
		removed: 2,
	}, {
		name: "v0.3 seed: preferredTransport becomes the binding served at url",
		doc: `{"name":"seed","protocolVersion":"0.3.0","url":"http://h:1","preferredTransport":"GRPC",` + sig + `,
			"additionalInterfaces":[{"url":"http://h:1","transport":"JSONRPC"},{"url":"h:2","transport":"GRPC"}]}`,
		outcome: servedAt("JSONRPC http://h:1"),
		want: map[string]any{"url": "http://h:1", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0", "signatures": nil,
			"additionalInterfaces": []any{map[string]any{"url": "http://h:1", "transport": "JSONRPC"}}},
		removed: 2, sigs: 1,
	}, {
		name: "v0.3: no served binding at url, the first served additional interface becomes url",
		doc: `{"name":"a","url":"http://h:1","preferredTransport":"GRPC",
			"additionalInterfaces":[{"url":"http://h:1","transport":"GRPC"},{"url":"http://h:3/rest","transport":"HTTP+JSON"},{"url":"h:2","transport":"GRPC"}]}`,
		outcome: servedAt("HTTP+JSON http://h:3/rest", "GRPC h:2"),
		want: map[string]any{"url": "http://h:3/rest", "preferredTransport": "HTTP+JSON", "additionalInterfaces": []any{
			map[string]any{"url": "http://h:3/rest", "transport": "HTTP+JSON"}, map[string]any{"url": "h:2", "transport": "GRPC"}}},
		removed: 2, // entries: the primary and its repeat in additionalInterfaces
	}, {
		name: "v0.3: the new primary may be at another host",
		doc: `{"name":"a","url":"http://h:1","preferredTransport":"GRPC",
			"additionalInterfaces":[{"url":"http://h:1","transport":"GRPC"},{"url":"h:2","transport":"GRPC"},{"url":"http://h:1/x","transport":"JSONRPC"}]}`,
		outcome: servedAt("GRPC h:2", "JSONRPC http://h:1/x"),
		want: map[string]any{"url": "h:2", "preferredTransport": "GRPC", "additionalInterfaces": []any{
			map[string]any{"url": "h:2", "transport": "GRPC"}, map[string]any{"url": "http://h:1/x", "transport": "JSONRPC"}}},
		removed: 2,
	}, {
		name: "union: a v0.3 part with nothing served is removed, v1.0 kept",
		doc: `{"name":"u","protocolVersion":"0.3.0","url":"http://h:1/v03","preferredTransport":"JSONRPC",
			"additionalInterfaces":[{"url":"h:2","transport":"GRPC"}],
			"supportedInterfaces":[{"url":"http://h:1/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
		outcome: servedAt("JSONRPC http://h:1/v1"),
		want: map[string]any{"url": nil, "preferredTransport": nil, "additionalInterfaces": nil, "supportedInterfaces": []any{
			map[string]any{"url": "http://h:1/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}},
		removed: 2,
	}, {
		name:     "auth_required counts as served (credentials decide, not the card)",
		doc:      `{"name":"a","supportedInterfaces":[{"url":"http://h:1/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` + sig + `}`,
		outcome:  func(card.Interface) wire.Outcome { return wire.AuthRequired },
		unchange: true,
	}, {
		name:     "a consistent signed card is returned as it is, signatures valid",
		doc:      `{"name":"a", "supportedInterfaces":[{"url":"http://h:1/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` + sig + `}`,
		outcome:  servedAt("JSONRPC http://h:1/rpc"),
		unchange: true,
	}, {
		name: "a stray member (Signatures) is dropped; it is no signature: nobody exact reads it",
		doc: `{"name":"a","Signatures":[{"protected":"x","signature":"y"},{"protected":"x","signature":"z"}],"supportedInterfaces":[
			{"url":"h:2","protocolBinding":"GRPC","protocolVersion":"1.0"},
			{"url":"http://h:1/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
		outcome: servedAt("JSONRPC http://h:1/rpc"),
		want:    map[string]any{"Signatures": nil},
		removed: 1, sigs: 0,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := card.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			nz, err := guard.Normalize(c, results(c, tt.outcome))
			if err != nil {
				t.Fatalf("Normalize() = %v", err)
			}
			if tt.unchange {
				if nz.Changed || string(nz.Document) != tt.doc || len(nz.Removed) != 0 {
					t.Fatalf("Normalize changed a consistent card: changed %v removed %v\n%s", nz.Changed, nz.Removed, nz.Document)
				}
				return
			}
			if !nz.Changed || len(nz.Removed) != tt.removed || nz.SignaturesDropped != tt.sigs {
				t.Errorf("changed %v, removed %d (%v), signatures dropped %d; want changed, %d, %d",
					nz.Changed, len(nz.Removed), nz.Removed, nz.SignaturesDropped, tt.removed, tt.sigs)
			}
			var got map[string]any
			if err := json.Unmarshal(nz.Document, &got); err != nil {
				t.Fatalf("normalized card is not JSON: %v\n%s", err, nz.Document)
			}
			for k, want := range tt.want {
				if diff := cmp.Diff(want, got[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
			if got["name"] == nil {
				t.Error("the name field was lost")
			}
			// What the card now says is served, as a client reads it.
			nc, err := card.Parse(nz.Document)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results(nc, tt.outcome) {
				if r.Outcome != wire.Served {
					t.Errorf("normalized card still declares %s (%s): %s", r.Interface, r.Interface.Source, r.Outcome)
				}
			}
		})
	}
}

func TestNormalizeNothingServed(t *testing.T) {
	t.Parallel()
	c, err := card.Parse([]byte(`{"name":"a","url":"http://h:1","preferredTransport":"GRPC","additionalInterfaces":[{"url":"h:2","transport":"GRPC"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = guard.Normalize(c, results(c, servedAt()))
	if !errors.Is(err, guard.ErrNothingServed) || !strings.Contains(err.Error(), "GRPC 0.3 at h:2") {
		t.Fatalf("Normalize() = %v, want ErrNothingServed naming the interfaces", err)
	}
}

// TestNormalizeDropsStrayMembers: a member named like a field but not exactly ("URL",
// "Transport" deep in an interface) is read by Go clients and ignored by JavaScript and
// Python ones; --normalize publishes the card without it, the rest byte for byte, and
// drops the signatures (they no longer match).
func TestNormalizeDropsStrayMembers(t *testing.T) {
	t.Parallel()
	doc := `{"name":"a","url":"http://h:1/rpc","URL":"http://h:9/other","preferredTransport":"JSONRPC",` +
		`"additionalInterfaces":[{"url":"h:2","transport":"GRPC","Transport":"JSONRPC"}],"signatures":[{"protected":"x","signature":"y"}],"x-keep":{"URL":1}}`
	c, err := card.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	nz, err := guard.Normalize(c, results(c, func(card.Interface) wire.Outcome { return wire.Served }))
	if err != nil {
		t.Fatalf("Normalize() = %v", err)
	}
	want := `{"name":"a","url":"http://h:1/rpc","preferredTransport":"JSONRPC","additionalInterfaces":[{"url":"h:2","transport":"GRPC"}],"x-keep":{"URL":1}}`
	if got := string(compactJSON(t, nz.Document)); got != want {
		t.Errorf("Normalize() =\n%s\nwant\n%s", got, want)
	}
	if !nz.Changed || nz.SignaturesDropped != 1 || strings.Join(nz.StrayMembers, " ") != "URL additionalInterfaces[0].Transport" {
		t.Errorf("Changed %v, SignaturesDropped %d, StrayMembers %q", nz.Changed, nz.SignaturesDropped, nz.StrayMembers)
	}
	again, err := card.Parse(nz.Document)
	if err != nil || len(again.ReadIssues()) != 0 {
		t.Fatalf("the normalized card still has stray members: %v %v", err, again.ReadIssues())
	}
}

func compactJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
