package probe_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/google/go-cmp/cmp"
	grpcgo "google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// probed parses a lab agent's published card, probes it and diagnoses it.
func probed(t *testing.T, a *lab.Agent, opts ...probe.Option) (*card.Card, []probe.Result, probe.Report) {
	t.Helper()
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		t.Fatalf("card.Parse() error = %v", err)
	}
	results := probe.Card(t.Context(), c, append([]probe.Option{probe.WithTimeout(5 * time.Second)}, opts...)...)
	for _, r := range results {
		t.Logf("%-40s %-16s %s", r.Interface.String(), r.Outcome, r.Detail)
	}
	rep := probe.Diagnose(c, results)
	for _, f := range rep.Findings {
		t.Logf("finding %s %s: %s", f.Severity, f.Code, f.Message)
	}
	for _, ci := range rep.Clients {
		t.Logf("client %-24s ok=%-5v %-16s %s", ci.Profile, ci.OK, ci.Outcome, ci.Note)
	}
	return c, results, rep
}

func codes(fs []card.Finding, sev card.Severity) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == sev {
			out = append(out, f.Code+"@"+f.Interface)
		}
	}
	return out
}

func clientOK(rep probe.Report) map[string]bool {
	m := map[string]bool{}
	for _, ci := range rep.Clients {
		m[ci.Profile] = ci.OK
	}
	return m
}

// TestDiagnose_Seed checks that both seed cards name both defects with their causes.
func TestDiagnose_Seed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		opts        []lab.Option
		want        []verdict
		wantErrors  []string
		wantClients map[string]bool
	}{
		{
			name: "v0.3 card shape",
			opts: lab.Seed(),
			// url+preferredTransport GRPC at the HTTP port; JSONRPC there; GRPC at the port with no service.
			want: []verdict{
				{wire.WrongBinding, jsonrpc, card.V03},
				{wire.Served, jsonrpc, card.V03},
				{wire.HandlerMissing, grpc, ""},
			},
			wantErrors: []string{
				"preferred-not-served@url+preferredTransport",
				"interface-not-served@url+preferredTransport",
				"interface-not-served@additionalInterfaces[1]",
				"preferred-url-mismatch@url+preferredTransport",
			},
			wantClients: map[string]bool{
				"a2a-go-default": false, "a2a-go-grpc": false, "a2a-go-v03-compat": false, "a2a-go-v2.3.1-v03-compat": false,
				"a2a-js-default": false, "a2a-js-grpc": false, "a2a-js-03-default": true, "a2a-js-03-grpc": false,
				"a2a-python-default": true,
				"a2a-java-default":   false, "v03-preferred-transport": false, "a2abind-delegate": true,
			},
		},
		{
			name: "v0.3 card shape, over TLS as in the record (https://agent:8443, gRPC :9443)",
			opts: append(lab.Seed(), lab.WithTLS()),
			want: []verdict{
				{wire.WrongBinding, jsonrpc, card.V03},
				{wire.Served, jsonrpc, card.V03},
				{wire.HandlerMissing, grpc, ""},
			},
			wantErrors: []string{
				"preferred-not-served@url+preferredTransport",
				"interface-not-served@url+preferredTransport",
				"interface-not-served@additionalInterfaces[1]",
			},
			wantClients: map[string]bool{
				"a2a-go-default": false, "a2a-go-grpc": false, "a2a-go-v03-compat": false, "a2a-go-v2.3.1-v03-compat": false,
				"a2a-js-default": false, "a2a-js-grpc": false, "a2a-js-03-default": true, "a2a-js-03-grpc": false,
				"a2a-python-default": true,
				"a2a-java-default":   false, "v03-preferred-transport": false, "a2abind-delegate": true,
			},
		},
		{
			name: "v1.0 card shape",
			opts: lab.SeedV1(),
			want: []verdict{
				{wire.WrongBinding, jsonrpc, card.V1},
				{wire.Served, jsonrpc, card.V1},
				{wire.HandlerMissing, grpc, ""},
			},
			wantErrors: []string{
				"preferred-not-served@supportedInterfaces[0]",
				"interface-not-served@supportedInterfaces[0]",
				"interface-not-served@supportedInterfaces[2]",
			},
			wantClients: map[string]bool{
				"a2a-go-default": true, "a2a-go-grpc": false, "a2a-go-v03-compat": false, "a2a-go-v2.3.1-v03-compat": false,
				"a2a-js-default": true, "a2a-js-grpc": false, "a2a-js-03-default": false, "a2a-js-03-grpc": false,
				"a2a-python-default": true,
				"a2a-java-default":   true, "v03-preferred-transport": false, "a2abind-delegate": true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.opts...)
			_, results, rep := probed(t, a, probe.WithConn(addr.Conn{RootCAs: a.CertPool}))
			var got []verdict
			for _, r := range results {
				got = append(got, verdictOf(r))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Card() verdicts mismatch (-want +got):\n%s", diff)
			}
			gotErrors := codes(rep.Findings, card.SeverityError)
			for _, w := range tt.wantErrors {
				if !slices.Contains(gotErrors, w) {
					t.Errorf("Diagnose() errors = %v, want %s among them", gotErrors, w)
				}
			}
			if rep.OK() {
				t.Errorf("Diagnose().OK() = true, want false")
			}
			if diff := cmp.Diff(tt.wantClients, clientOK(rep)); diff != "" {
				t.Errorf("Diagnose() client ok mismatch (-want +got):\n%s", diff)
			}
			for _, f := range rep.Findings {
				if f.Code != card.CodePreferredNotServed {
					continue
				}
				for _, w := range []string{"wrong_binding", "JSONRPC", "honour the hint fail"} {
					if !strings.Contains(f.Message, w) {
						t.Errorf("preferred-not-served message = %q, want it to mention %q", f.Message, w)
					}
				}
			}
		})
	}
}

// TestDiagnose_Healthy checks that agents serving what they declare get no error finding.
func TestDiagnose_Healthy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []lab.Option
		n    int
	}{
		{"healthy v1.0, three bindings", lab.Healthy(), 3},
		{"healthy v0.3, three bindings", lab.HealthyV03(), 3},
		{"union card, both versions", lab.Union(), 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.opts...)
			_, results, rep := probed(t, a)
			if len(results) != tt.n {
				t.Fatalf("Card() returned %d results, want %d", len(results), tt.n)
			}
			for _, r := range results {
				if r.Outcome != wire.Served {
					t.Errorf("%s: outcome %s, want served (%s)", r.Interface, r.Outcome, r.Detail)
				}
			}
			if errs := codes(rep.Findings, card.SeverityError); len(errs) > 0 {
				t.Errorf("Diagnose() errors = %v, want none", errs)
			}
			if !rep.OK() {
				t.Errorf("Diagnose().OK() = false, want true")
			}
		})
	}
}

// TestClientImpact_AgainstA2AGo builds, for every a2a-go profile, the real a2a-go v2.3.1
// client the profile describes, calls GetTask against the lab agent, and checks that the
// prediction (interface chosen, success or failure) is what really happens.
func TestClientImpact_AgainstA2AGo(t *testing.T) {
	t.Parallel()
	agents := map[string][]lab.Option{
		"healthy":     lab.Healthy(),
		"healthy-v03": lab.HealthyV03(),
		"union":       lab.Union(),
		"seed":        lab.Seed(),
		"seed-v1":     lab.SeedV1(),
		"grpc-first, gRPC serves only v0.3": {
			lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithGRPC(lab.GRPCV03),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("grpc-v03", lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
			}),
		},
		"grpc-first with an http:// gRPC URL": {
			lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithGRPC(lab.GRPCV1),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("grpc-scheme", lab.Decl{URL: "http://" + a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
			}),
		},
		"grpc-first with a dns:/// target": {
			lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithGRPC(lab.GRPCV1),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("grpc-dns", lab.Decl{URL: "dns:///" + a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
			}),
		},
		"1.0 declared, 0.3 served": {
			lab.WithJSONRPC(card.V03, lab.PathJSONRPCV03), lab.WithREST(card.V1, lab.PathREST),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("v03-as-v1", lab.Decl{URL: a.URL(lab.PathJSONRPCV03), Binding: lab.JSONRPC, Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, Version: card.V1})
			}),
		},
		"lowercase binding and a missing version": {
			lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("sloppy", lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: "jsonrpc", Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC},
					lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.HTTPJSON, Version: card.V1})
			}),
		},
		"HTTP+JSON 0.3 only, at {url}/v1 as a2a-go v2.4.0 serves it": {
			lab.WithREST(card.V03, lab.PathRESTV03),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("rest-v03", lab.Decl{URL: a.URL(lab.PathRESTV03), Binding: lab.HTTPJSON, Version: card.V03})
			}),
		},
		"needs credentials": append(lab.Healthy(), lab.WithAuth("s3cret")),
		"the same interface in two binding spellings": {
			lab.WithJSONRPC(card.V1, lab.PathJSONRPC),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("two-spellings", lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: "jsonrpc", Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
			}),
		},
	}
	insecureCreds := grpcgo.WithTransportCredentials(insecure.NewCredentials())
	realClients := map[string]struct {
		parser agentcard.Parser
		opts   []a2aclient.FactoryOption
	}{
		"a2a-go-default": {agentcard.DefaultCardParser, nil},
		"a2a-go-grpc":    {agentcard.DefaultCardParser, []a2aclient.FactoryOption{a2agrpc.WithGRPCTransport(insecureCreds)}},
		"a2a-go-v03-compat": {a2av0.NewAgentCardParser(), []a2aclient.FactoryOption{
			a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
			a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
			a2agrpc.WithGRPCTransport(insecureCreds),
			a2agrpcv0.WithGRPCTransport(insecureCreds),
		}},
	}
	for name, opts := range agents {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, opts...)
			_, _, rep := probed(t, a)
			checked := 0
			for _, ci := range rep.Clients {
				rc, ok := realClients[ci.Profile]
				if !ok {
					continue
				}
				checked++
				gotURL, gotOK, err := callWithA2AGo(t.Context(), a.CardJSON, rc.parser, rc.opts)
				t.Logf("%s: predicted ok=%v %s via %v; a2a-go: ok=%v url=%q err=%v", ci.Profile, ci.OK, ci.Outcome, ci.Interface, gotOK, gotURL, err)
				if gotOK != ci.OK {
					t.Errorf("%s: predicted ok = %v (%s), real a2a-go client ok = %v (err %v)", ci.Profile, ci.OK, ci.Note, gotOK, err)
				}
				wantURL := ""
				if ci.Interface != nil {
					wantURL = ci.Interface.URL
				}
				if gotURL != wantURL {
					t.Errorf("%s: predicted interface URL %q, real a2a-go client called %q", ci.Profile, wantURL, gotURL)
				}
			}
			if checked != len(realClients) {
				t.Errorf("checked %d a2a-go profiles, want %d", checked, len(realClients))
			}
		})
	}
}

// urlRecorder is an a2aclient.CallInterceptor that records the interface URL a client uses.
type urlRecorder struct {
	a2aclient.PassthroughInterceptor
	mu  sync.Mutex
	url string
}

func (r *urlRecorder) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	r.mu.Lock()
	r.url = req.BaseURL
	r.mu.Unlock()
	return ctx, nil, nil
}

// callWithA2AGo parses cardJSON like the profile's resolver, builds the a2a-go client and
// sends a message to the lab's echo executor: success is its answer (a task lookup's
// TaskNotFound would not do: a2a-go v2.4.0's v0.3 HTTP+JSON client reads an error only
// from application/json, and its own v0.3 server answers application/problem+json).
// url is the interface the client called, "" when it could not even be built.
func callWithA2AGo(ctx context.Context, cardJSON []byte, parse agentcard.Parser, opts []a2aclient.FactoryOption) (url string, ok bool, err error) {
	ac, err := parse(cardJSON)
	if err != nil {
		return "", false, err
	}
	rec := &urlRecorder{}
	client, err := a2aclient.NewFromCard(ctx, ac, append(slices.Clone(opts), a2aclient.WithCallInterceptors(rec))...)
	if err != nil {
		return "", false, err
	}
	defer func() { _ = client.Destroy() }()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.url, err == nil, err
}

// TestClientImpact_NoInterfaceFromTheWire: the client-impact outcome no_interface is
// produced by a real probe, not only in tables: the v0.3 seed card, probed on the wire,
// gives a2a-go's default resolver (which reads only supportedInterfaces) no interface.
func TestClientImpact_NoInterfaceFromTheWire(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Seed()...)
	_, _, rep := probed(t, a)
	for _, ci := range rep.Clients {
		if ci.Profile == "a2a-go-default" {
			if ci.Outcome != wire.NoInterface || ci.OK {
				t.Errorf("a2a-go-default on the v0.3 seed card = %s (ok %v), want %s", ci.Outcome, ci.OK, wire.NoInterface)
			}
			return
		}
	}
	t.Fatalf("no a2a-go-default profile among %v", clientOK(rep))
}

// TestClientImpact_RefusedBytes: a card document after a UTF-8 BOM, which a2a-go's
// card resolver refuses (encoding/json), is predicted to fail every a2a-go profile with
// no interface selected, and to change nothing for the other clients, which read it.
func TestClientImpact_RefusedBytes(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	plain, results, _ := probed(t, a)
	bom, err := card.Parse(append([]byte("\xef\xbb\xbf"), a.CardJSON...))
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]probe.ClientImpact{}
	for _, ci := range probe.Diagnose(plain, results).Clients {
		before[ci.Profile] = ci
	}
	for _, ci := range probe.Diagnose(bom, results).Clients {
		was := before[ci.Profile]
		if strings.HasPrefix(ci.Profile, "a2a-go") {
			if !was.OK || ci.OK || ci.Outcome != wire.NoInterface || !strings.Contains(ci.Note, "byte order mark") {
				t.Errorf("%s: without the BOM ok %v; with it %s (ok %v): %s; want ok, then %s saying why",
					ci.Profile, was.OK, ci.Outcome, ci.OK, ci.Note, wire.NoInterface)
			}
			continue
		}
		if ci.OK != was.OK || ci.Outcome != was.Outcome {
			t.Errorf("%s: %s (ok %v) with the BOM, %s (ok %v) without: want the same", ci.Profile, ci.Outcome, ci.OK, was.Outcome, was.OK)
		}
	}
}
