package guard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/signature"
)

// capabilityLies are the lab agents whose cards claim a capability their handler does
// not serve, with the member that claims it.
var capabilityLies = []struct {
	name   string
	agent  func() []lab.Option
	lie    probe.Capability
	member string
}{
	{"streaming refused", lab.StreamingRefused, probe.Streaming, "capabilities.streaming"},
	{"push without a store", lab.PushWithoutStore, probe.PushNotifications, "capabilities.pushNotifications"},
	{"extended card missing", lab.ExtendedCardMissing, probe.ExtendedAgentCard, "capabilities.extendedAgentCard"},
}

// checkPublished loads the card the guard publishes and checks it on the wire
// (probe.Check, at the upstream's addresses the card names).
func checkPublished(t *testing.T, g *guard.Guard) (*card.Card, probe.Report, map[probe.Capability]probe.CapabilityResult) {
	t.Helper()
	c, err := card.Load(t.Context(), cardOf(g))
	if err != nil {
		t.Fatalf("the guard's card: %v", err)
	}
	ch := probe.Check(t.Context(), c)
	caps := map[probe.Capability]probe.CapabilityResult{}
	for _, cr := range ch.Capabilities {
		caps[cr.Name] = cr
	}
	return c, ch.Report(c), caps
}

// TestStrictWithholdsCapabilityLies: strict mode withholds a card claiming a capability
// its agent does not serve (503 + Retry-After, the capability named in /readyz and in
// the state's findings), and publishes the card of an agent serving everything it
// declares unchanged.
func TestStrictWithholdsCapabilityLies(t *testing.T) {
	t.Parallel()
	for _, tt := range capabilityLies {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.agent()...)
			g := startGuard(t, a.BaseURL)
			s := g.State()
			if s.Published {
				t.Fatalf("the card of %s is published", tt.name)
			}
			got := get(t, cardOf(g))
			if got.status != http.StatusServiceUnavailable || got.header.Get("Retry-After") == "" || strings.Contains(got.body, "supportedInterfaces") {
				t.Fatalf("card = %d (Retry-After %q) %s, want 503 with Retry-After and no card", got.status, got.header.Get("Retry-After"), got.body)
			}
			want := "declared capability not served: " + string(tt.lie)
			if r := get(t, g.URL()+"/readyz"); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, want) {
				t.Errorf("/readyz = %d %q, want 503 saying %q", r.status, r.body, want)
			}
			if !strings.Contains(got.body, want) || strings.Contains(got.body, "127.0.0.1") {
				t.Errorf("withheld answer %q, want it to say %q and name no upstream address", got.body, want)
			}
			found := false
			for _, f := range s.Findings {
				if f.Code == card.CodeCapabilityNotServed && strings.Contains(f.Message, tt.member) {
					found = true
				}
			}
			if !found {
				t.Errorf("findings = %+v, want capability-not-served naming %s", s.Findings, tt.member)
			}
			if r := get(t, g.URL()+"/.well-known/agent.json"); r.status != http.StatusServiceUnavailable {
				t.Errorf("the legacy card path through the guard = %d, want the withheld card (503)", r.status)
			}
		})
	}
	t.Run("serves everything it declares", func(t *testing.T) {
		t.Parallel()
		a := labtest.Start(t, lab.Capable()...)
		g := startGuard(t, a.BaseURL)
		if got := get(t, cardOf(g)); got.status != http.StatusOK || got.body != string(a.CardJSON) {
			t.Fatalf("card = %d %s, want the upstream's card unchanged", got.status, got.body)
		}
		if s := g.State(); len(s.Findings) != 0 || len(s.Capabilities) != 3 {
			t.Errorf("state findings %+v, %d capabilities; want none and 3", s.Findings, len(s.Capabilities))
		}
	})
}

// TestNormalizeSetsCapabilitiesToWhatIsServed: --normalize publishes each lying card
// with the flag set to what is served (false), marked in a header, with the interfaces
// unchanged; on the wire the published card then has no capability finding. A
// capability served but not declared is set to true. A card that needs no change is
// served as it is.
func TestNormalizeSetsCapabilitiesToWhatIsServed(t *testing.T) {
	t.Parallel()
	for _, tt := range capabilityLies {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.agent()...)
			g := startGuard(t, a.BaseURL, guard.WithNormalize())
			got := get(t, cardOf(g))
			if got.status != http.StatusOK || got.header.Get(guard.HeaderCapabilities) != tt.member+"=false" {
				t.Fatalf("card = %d %s %q, want 200 with %s=false", got.status, guard.HeaderCapabilities, got.header.Get(guard.HeaderCapabilities), tt.member)
			}
			c, rep, caps := checkPublished(t, g)
			if tt.lie.Claim(c).Declared || len(c.Interfaces) != 3 {
				t.Errorf("published card claims %s = %v with %d interfaces, want false and the 3 interfaces", tt.lie, tt.lie.Claim(c).Declared, len(c.Interfaces))
			}
			if caps[tt.lie].Verdict != probe.CapabilityNotServed {
				t.Errorf("%s on the wire = %s, want not_served (the upstream is unchanged)", tt.lie, caps[tt.lie].Verdict)
			}
			for _, f := range rep.Findings {
				if f.Severity == card.SeverityError {
					t.Errorf("the normalized card still has %s: %s", f.Code, f.Message)
				}
			}
			nz := g.State().Normalized
			if nz == nil || len(nz.Capabilities) != 1 || nz.Capabilities[0].Capability != tt.lie || len(nz.Removed) != 0 {
				t.Errorf("state.Normalized = %+v, want one capability change for %s and nothing removed", nz, tt.lie)
			}
		})
	}
	t.Run("served but not declared", func(t *testing.T) {
		t.Parallel()
		a := labtest.Start(t, append(lab.Capable(), lab.WithCard(func(a *lab.Agent) any {
			c := lab.V1Card("quiet", lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1}, lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, Version: card.V1})
			c["capabilities"] = map[string]any{"streaming": true}
			return c
		}))...)
		g := startGuard(t, a.BaseURL, guard.WithNormalize())
		got := get(t, cardOf(g))
		if want := "capabilities.pushNotifications=true, capabilities.extendedAgentCard=true"; got.status != http.StatusOK || got.header.Get(guard.HeaderCapabilities) != want {
			t.Fatalf("card = %d %q, want 200 with %s %q", got.status, got.header.Get(guard.HeaderCapabilities), guard.HeaderCapabilities, want)
		}
		c, _, caps := checkPublished(t, g)
		for _, k := range probe.AllCapabilities() {
			if !k.Claim(c).Declared || caps[k].Verdict != probe.CapabilityServed {
				t.Errorf("%s: declared %v, %s; want declared and served", k, k.Claim(c).Declared, caps[k].Verdict)
			}
		}
	})
	t.Run("consistent", func(t *testing.T) {
		t.Parallel()
		a := labtest.Start(t, lab.Capable()...)
		g := startGuard(t, a.BaseURL, guard.WithNormalize())
		if got := get(t, cardOf(g)); got.status != http.StatusOK || got.body != string(a.CardJSON) || got.header.Get(guard.HeaderCapabilities) != "" {
			t.Errorf("card = %d %q %s, want the upstream's card unchanged", got.status, got.header.Get(guard.HeaderCapabilities), got.body)
		}
	})
}

// TestNormalizeResignsCapabilityChanges: with WithCardSigning a card whose capability
// flag was corrected is signed by the guard, and the signature verifies; the v0.3 member
// supportsAuthenticatedExtendedCard is corrected where a v0.3 card states it.
func TestNormalizeResignsCapabilityChanges(t *testing.T) {
	t.Parallel()
	key, err := signature.GenerateSigningKey(signature.KeyEd25519, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := labtest.Start(t, lab.WithJSONRPC(card.V03, "/"), lab.WithCard(func(a *lab.Agent) any {
		c := lab.V03Card("v03-extended-missing", a.BaseURL, lab.JSONRPC)
		c["supportsAuthenticatedExtendedCard"] = true
		c["signatures"] = []map[string]string{{"protected": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0", "signature": "c2lnbmF0dXJl"}}
		return c
	}))
	g := startGuard(t, a.BaseURL, guard.WithNormalize(), guard.WithCardSigning(key, ""))
	got := get(t, cardOf(g))
	if got.status != http.StatusOK || got.header.Get(guard.HeaderCapabilities) != "supportsAuthenticatedExtendedCard=false" ||
		got.header.Get(guard.HeaderResigned) != key.KeyID || got.header.Get(guard.HeaderSignaturesDropped) != "1" {
		t.Fatalf("card = %d, headers %v; want 200, supportsAuthenticatedExtendedCard=false, re-signed, 1 dropped", got.status, got.header)
	}
	jwks, err := key.PublicJWKS()
	if err != nil {
		t.Fatal(err)
	}
	ks, err := signature.ParseKeySet(jwks, "guard")
	if err != nil {
		t.Fatal(err)
	}
	c, err := card.Parse([]byte(got.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.Capabilities.ExtendedAgentCard.Declared {
		t.Errorf("the re-signed card still claims the extended card: %s", got.body)
	}
	if v, err := signature.VerifySignatures(t.Context(), c, signature.WithKeySet(ks)); err != nil || !v.Verified() {
		t.Errorf("verification of the re-signed card = %+v, %v; want valid", v, err)
	}
}

// TestNormalizeLeavesUnknownCapabilities: a capability whose check cannot tell (no
// served interface of any binding to ask) keeps its flag.
func TestNormalizeLeavesUnknownCapabilities(t *testing.T) {
	t.Parallel()
	c, err := card.Parse([]byte(`{"name":"x","description":"x","version":"1","capabilities":{"pushNotifications":true},
		"defaultInputModes":[],"defaultOutputModes":[],"skills":[],
		"supportedInterfaces":[{"url":"http://127.0.0.1:1/a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	results := []probe.Result{{Interface: c.Interfaces[0], Outcome: "served"}}
	caps := []probe.CapabilityResult{{Name: probe.PushNotifications, Claim: c.Capabilities.PushNotifications, Verdict: probe.CapabilityUnknown}}
	nz, err := guard.Normalize(c, results, caps...)
	if err != nil || nz.Changed || len(nz.Capabilities) != 0 {
		t.Errorf("Normalize = %+v, %v; want the card unchanged", nz, err)
	}
}
