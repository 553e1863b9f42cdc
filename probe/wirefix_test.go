package probe

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// diagnoseAgent probes a lab agent's card and diagnoses it.
func diagnoseAgent(t *testing.T, opts ...lab.Option) (*card.Card, []Result, Report) {
	t.Helper()
	a := labtest.Start(t, opts...)
	c, err := card.Load(t.Context(), a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	results := Card(t.Context(), c)
	return c, results, Diagnose(c, results)
}

// TestFixesFollowTheWire (issue 18 item 5): on the seed agent, in both card shapes, no
// fix sends the reader to a socket the probe found not serving: lint's "write the GRPC
// address as host:port" (the JSON-RPC port) and "GRPC is served at <the port with no
// A2A service>" are replaced by fixes from the results, and a URL declared with two
// bindings gets what the probe found served there.
func TestFixesFollowTheWire(t *testing.T) {
	for name, opts := range map[string][]lab.Option{"seed v0.3": lab.Seed(), "seed v1.0": lab.SeedV1()} {
		t.Run(name, func(t *testing.T) {
			c, results, report := diagnoseAgent(t, opts...)
			var noHandler []string // addresses where no A2A handler answers
			for _, r := range results {
				if r.Outcome == wire.HandlerMissing {
					noHandler = append(noHandler, r.Interface.URL)
				}
			}
			if len(noHandler) == 0 {
				t.Fatalf("the seed's gRPC port without an A2A service was not found handler_missing: %+v", results)
			}
			bySource := map[string]card.Interface{}
			for _, i := range c.Interfaces {
				bySource[i.Source.String()] = i
			}
			seen := map[string]bool{}
			for _, f := range report.Findings {
				seen[f.Code] = true
				for _, addr := range noHandler {
					if names(f.Fix, addr) {
						t.Errorf("%s fix names %s, where probe found no A2A handler: %s", f.Code, addr, f.Fix)
					}
				}
				for _, r := range results {
					if r.Outcome != wire.WrongBinding || bySource[f.Interface].Binding != r.Interface.Binding {
						continue
					}
					hp := strings.TrimPrefix(r.Interface.URL, "http://")
					if strings.Contains(f.Fix, "write the GRPC address as \""+hp+"\"") || strings.Contains(f.Fix, string(r.Interface.Binding)+" at "+r.Interface.URL) {
						t.Errorf("%s fix puts %s at %s, where probe found %s %s: %s", f.Code, r.Interface.Binding, r.Interface.URL, r.ActualBinding, r.ActualVersion, f.Fix)
					}
				}
				switch f.Code {
				case "grpc-url-scheme", "preferred-url-mismatch":
					if !strings.Contains(f.Fix, "GRPC is served at none of the card's addresses") {
						t.Errorf("%s fix = %q, want it to say GRPC is served nowhere the card declares", f.Code, f.Fix)
					}
				case "url-conflicting-bindings", "url-shared-bindings":
					if !strings.HasPrefix(f.Fix, "probe found JSONRPC") || !strings.Contains(f.Fix, "and not GRPC") {
						t.Errorf("%s fix = %q, want what probe found served at the URL", f.Code, f.Fix)
					}
				case card.CodeInterfaceNotServed:
					// The GRPC entry at the JSON-RPC URL: JSON-RPC is declared there already.
					if strings.Contains(f.Message, "wrong_binding") &&
						!strings.HasPrefix(f.Fix, "remove this GRPC entry: JSONRPC is served at this URL and the card declares it there too") {
						t.Errorf("interface-not-served fix = %q, want the GRPC entry removed (JSONRPC is already declared there)", f.Fix)
					}
				}
			}
			for _, code := range []string{"grpc-url-scheme", "preferred-url-mismatch", card.CodePreferredNotServed} {
				if !seen[code] {
					t.Errorf("no %s finding on the seed card", code)
				}
			}
		})
	}
}

// TestVersionOnlyMismatchFix (issue 24): the preferred interface declares JSON-RPC 1.0
// where JSON-RPC 0.3 is served. The fix says to declare the version served, not to
// "declare as preferred the binding really served" (it is the same binding).
func TestVersionOnlyMismatchFix(t *testing.T) {
	_, results, report := diagnoseAgent(t, lab.WithJSONRPC(card.V03, "/"), lab.WithCard(func(a *lab.Agent) any {
		return lab.V1Card("version-drift", lab.Decl{URL: a.BaseURL, Binding: lab.JSONRPC, Version: card.V1})
	}))
	if len(results) != 1 || results[0].Outcome != wire.VersionMismatch || results[0].ActualBinding != a2a.TransportProtocolJSONRPC {
		t.Fatalf("results = %+v, want one version_mismatch with JSONRPC served", results)
	}
	for _, f := range report.Findings {
		if f.Code != card.CodePreferredNotServed {
			continue
		}
		if !strings.HasPrefix(f.Fix, `declare protocolVersion "0.3" for it (the version served there)`) || strings.Contains(f.Fix, "binding") {
			t.Errorf("preferred-not-served fix = %q, want the version served declared", f.Fix)
		}
		return
	}
	t.Errorf("no %s finding: %+v", card.CodePreferredNotServed, report.Findings)
}

// TestNamesAnAddress: an address is named only as a whole host:port or URL.
func TestNamesAnAddress(t *testing.T) {
	for _, tt := range []struct {
		text, addr string
		want       bool
	}{
		{`write "h:80"`, "h:80", true},
		{"at h:80, where", "h:80", true},
		{"at h:8080", "h:80", false},
		{"at http://h:80/a2a", "http://h:80", false},
		{"at h:8080 and h:80", "h:80", true},
		{"", "h:80", false},
	} {
		if got := names(tt.text, tt.addr); got != tt.want {
			t.Errorf("names(%q, %q) = %v, want %v", tt.text, tt.addr, got, tt.want)
		}
	}
}

// TestDelegatePredictionKnowsPlaintext: where plaintext gRPC is served at a bare
// host:port that is not loopback, the a2abind-delegate prediction is tls_mismatch (the
// delegate, without --grpc-plaintext, dials TLS there), as the delegate's own
// TestPlaintextGRPCOffLoopback shows on the wire; served over TLS, it succeeds.
func TestDelegatePredictionKnowsPlaintext(t *testing.T) {
	iface := card.Interface{URL: "agent.example:50051", Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1, Source: card.Supported(0)}
	c := &card.Card{Name: "remote", Location: "https://agent.example/.well-known/agent-card.json", Interfaces: []card.Interface{iface}}
	for _, tt := range []struct {
		way  Way
		want wire.Outcome
	}{{Way{TLS: false}, wire.TLSMismatch}, {Way{TLS: true}, wire.Served}} {
		r := Result{Interface: iface, Outcome: wire.Served, Lookup: wire.Served, ActualBinding: iface.Binding, ActualVersion: card.V1, Way: tt.way}
		for _, ci := range Diagnose(c, []Result{r}).Clients {
			if ci.Profile == "a2abind-delegate" && ci.Outcome != tt.want {
				t.Errorf("way %+v: a2abind-delegate gets %s (%s), want %s", tt.way, ci.Outcome, ci.Note, tt.want)
			}
		}
	}
}
