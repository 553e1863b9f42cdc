package interop

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	grpcgo "google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/server"
)

// jsProfiles maps probe's a2a-js client profiles to the transport set client.mjs gets
// to be that client (no preferredTransports: the profiles model the SDK's defaults).
var jsProfiles = []struct {
	profile    string
	transports string
}{
	{"a2a-js-default", transportsDefault},
	{"a2a-js-grpc", transportsGRPC},
}

// TestClientImpactMatchesA2AJS checks the client-impact predictions Diagnose makes for
// the a2a-js profiles against what the real @a2a-js/sdk 1.3.0 client does with the same
// card: whether it gets a client at all, which interface (binding and URL) it picks,
// and whether a message then goes through. The seed's card is served both by a2a-go
// (lab.Seed in the record's v0.3 shape, lab.SeedV1 in the v1.0 shape) and by an a2a-js
// agent; healthy and lying cards, and a2abind's own derived cards, complete the matrix.
func TestClientImpactMatchesA2AJS(t *testing.T) {
	t.Parallel()
	needNode(t)
	type agent struct {
		base  string
		close func()
	}
	startLab := func(opts ...lab.Option) func(t *testing.T) agent {
		return func(t *testing.T) agent {
			a, err := lab.Start(opts...)
			if err != nil {
				t.Fatal(err)
			}
			return agent{a.BaseURL, func() { _ = a.Close() }}
		}
	}
	startJS := func(mode string) func(t *testing.T) agent {
		return func(t *testing.T) agent { return agent{startJSServer(t, mode).BaseURL, func() {}} }
	}
	startGuarded := func(opts ...server.Option) func(t *testing.T) agent {
		return func(t *testing.T) agent {
			return agent{startGuardedServer(t, lab.Echo{}, opts...).BaseURL(), func() {}}
		}
	}
	tests := []struct {
		name  string
		start func(t *testing.T) agent
		// What the real client does, from the SDK's code and ecosystem.md §5; checked so
		// that the matrix keeps covering both successes and failures.
		wantDefaultOK, wantGRPCOK bool
	}{
		// v0.3 card: the default resolver reads no supportedInterfaces, so no client at all.
		{"lab-seed-v03", startLab(lab.Seed()...), false, false},
		// GRPC at the HTTP URL first, JSONRPC there, GRPC at a port with no service: the
		// default client skips gRPC and succeeds; with gRPC it takes the LAST 1.0 GRPC
		// entry (#734), which answers UNIMPLEMENTED.
		{"lab-seed-v1", startLab(lab.SeedV1()...), true, false},
		{"js-seed", startJS(modeSeed), true, false},
		{"js-grpc-at-http", startJS(modeGRPCAtHTTP), true, false},
		{"js-grpc-no-service", startJS(modeGRPCNoService), true, false},
		{"js-honest", startJS(modeHonest), true, true},
		{"lab-healthy", startLab(lab.Healthy()...), true, true},
		{"lab-union", startLab(lab.Union()...), true, true},
		// a2abind's own derived cards.
		{"a2abind-serve", startGuarded(server.WithGRPCAddr("127.0.0.1:0")), true, true},
		{"a2abind-serve-v03", startGuarded(server.WithGRPCAddr("127.0.0.1:0"), server.WithV03()), true, true},
		{"a2abind-serve-grpc-on-http", startGuarded(server.WithGRPCOnHTTP()), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := tt.start(t)
			t.Cleanup(a.close)
			ctx, cancel := context.WithTimeout(context.Background(), probeBudget)
			defer cancel()
			c, err := card.Load(ctx, a.base)
			if err != nil {
				t.Fatalf("card.Load(%s) = %v", a.base, err)
			}
			report := probe.Diagnose(c, probe.Card(ctx, c, probe.WithTimeout(5*time.Second)))
			var calls []jsCall
			for _, p := range jsProfiles {
				calls = append(calls, jsCall{Target: a.base, Transports: p.transports, Ops: []string{"send"}})
			}
			runs := runJSClients(t, calls...)
			for n, p := range jsProfiles {
				pred, ok := impactFor(report, p.profile)
				if !ok {
					t.Fatalf("Diagnose has no client profile %q (profiles: %v)", p.profile, profileNames(report))
				}
				run := runs[n]
				send := run.Ops["send"]
				gotOK := run.Create.OK && send.OK
				wantOK := tt.wantDefaultOK
				if p.transports == transportsGRPC {
					wantOK = tt.wantGRPCOK
				}
				if gotOK != wantOK {
					t.Errorf("%s: the real client's send ok = %v, want %v (the scenario is not what the test assumes)\n%s",
						p.profile, gotOK, wantOK, run.raw)
				}
				if pred.OK != gotOK {
					t.Errorf("%s: predicted ok = %v (%s: %s), real client ok = %v\n%s",
						p.profile, pred.OK, pred.Outcome, pred.Note, gotOK, run.raw)
				}
				switch {
				case pred.Interface == nil && run.Create.OK:
					t.Errorf("%s: predicted no interface (%s), real client picked %s at %s",
						p.profile, pred.Note, run.Create.Transport, run.Create.URL)
				case pred.Interface != nil && !run.Create.OK:
					t.Errorf("%s: predicted %s, real client got no client: %v", p.profile, pred.Interface, run.Create.Error)
				case pred.Interface != nil:
					b, _ := card.CanonicalBinding(pred.Interface.Binding)
					if string(b) != run.Create.Transport || pred.Interface.URL != run.Create.URL {
						t.Errorf("%s: predicted %s, real client picked %s at %s",
							p.profile, pred.Interface, run.Create.Transport, run.Create.URL)
					}
				}
			}
		})
	}
}

func impactFor(r probe.Report, profile string) (probe.ClientImpact, bool) {
	for _, ci := range r.Clients {
		if ci.Profile == profile {
			return ci, true
		}
	}
	return probe.ClientImpact{}, false
}

func profileNames(r probe.Report) []string {
	var out []string
	for _, ci := range r.Clients {
		out = append(out, ci.Profile)
	}
	return out
}

// goProfiles are probe's a2a-go client profiles, as the real a2a-go v2.3.1 client is built
// for them (the same construction probe's own tests use on lab agents).
var goProfiles = []struct {
	profile string
	opts    func() []a2aclient.FactoryOption
}{
	{"a2a-go-default", func() []a2aclient.FactoryOption { return nil }},
	{"a2a-go-grpc", func() []a2aclient.FactoryOption {
		return []a2aclient.FactoryOption{a2agrpc.WithGRPCTransport(grpcgo.WithTransportCredentials(insecure.NewCredentials()))}
	}},
}

// TestClientImpactMatchesA2AGoOnJSCards checks the a2a-go profiles' predictions against
// the real a2a-go v2.3.1 client on cards an a2a-js agent publishes (probe's own tests
// cover the cards a2a-go agents publish): the interface it calls and whether a lookup of
// an unknown task reaches a handler (a2a.ErrTaskNotFound).
func TestClientImpactMatchesA2AGoOnJSCards(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{modeHonest, modeGRPCAtHTTP, modeGRPCNoService, modeSeed} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := startJSServer(t, mode)
			ctx, cancel := context.WithTimeout(context.Background(), probeBudget)
			defer cancel()
			c, err := card.Parse(s.Card)
			if err != nil {
				t.Fatal(err)
			}
			report := probe.Diagnose(c, probe.Card(ctx, c, probe.WithTimeout(5*time.Second)))
			for _, p := range goProfiles {
				pred, ok := impactFor(report, p.profile)
				if !ok {
					t.Fatalf("Diagnose has no client profile %q (profiles: %v)", p.profile, profileNames(report))
				}
				gotURL, err := callA2AGo(ctx, s.Card, p.opts())
				gotOK := errors.Is(err, a2a.ErrTaskNotFound)
				wantURL := ""
				if pred.Interface != nil {
					wantURL = pred.Interface.URL
				}
				if gotOK != pred.OK || gotURL != wantURL {
					t.Errorf("%s: predicted ok = %v at %q (%s: %s); real a2a-go client ok = %v at %q (%v)",
						p.profile, pred.OK, wantURL, pred.Outcome, pred.Note, gotOK, gotURL, err)
				}
			}
		})
	}
}

// goURLRecorder is an a2aclient.CallInterceptor that records the interface URL called.
type goURLRecorder struct {
	a2aclient.PassthroughInterceptor
	mu  sync.Mutex
	url string
}

// Before records the call's base URL.
func (r *goURLRecorder) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	r.mu.Lock()
	r.url = req.BaseURL
	r.mu.Unlock()
	return ctx, nil, nil
}

// callA2AGo builds an a2a-go client from the card as its default resolver parses it and
// looks up an unknown task; url is the interface called ("" when no client was built).
func callA2AGo(ctx context.Context, cardJSON []byte, opts []a2aclient.FactoryOption) (string, error) {
	ac, err := agentcard.DefaultCardParser(cardJSON)
	if err != nil {
		return "", err
	}
	rec := &goURLRecorder{}
	client, err := a2aclient.NewFromCard(ctx, ac, append(opts, a2aclient.WithCallInterceptors(rec))...)
	if err != nil {
		return "", err
	}
	defer func() { _ = client.Destroy() }()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = client.GetTask(ctx, &a2a.GetTaskRequest{ID: "a2abind-interop-no-such-task"})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.url, err
}
