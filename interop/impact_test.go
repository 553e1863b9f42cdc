package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/servertest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/server"
)

// realClient is a real client that a probe client profile models: an a2a-go release's
// client in one configuration (testdata/a2agoclient), or an @a2a-js/sdk release's
// ClientFactory with one transport set (client.mjs, client03.mjs).
type realClient struct {
	name, profile string
	goRelease     string // a2a-go client: the release, with goConfig
	goConfig      string // default, grpc or v03 (a2agoclient's CONFIG)
	jsScript      string // a2a-js client: client.mjs or client03.mjs, with jsTransports
	jsTransports  string
}

// realClients are every client a profile models that runs here: a2a-go v2.3.1 and the
// module's release (default, gRPC, v0.3 compat), @a2a-js/sdk 1.3.0 and 0.3.14 (default,
// gRPC).
func realClients(t *testing.T) []realClient {
	var out []realClient
	for _, release := range a2aGoReleases(t) {
		v03 := "a2a-go-v03-compat"
		if release == a2aGoFieldRelease {
			v03 = "a2a-go-v2.3.1-v03-compat"
		}
		for config, profile := range map[string]string{"default": "a2a-go-default", "grpc": "a2a-go-grpc", "v03": v03} {
			out = append(out, realClient{name: "a2a-go " + release + " " + config, profile: profile, goRelease: release, goConfig: config})
		}
	}
	for _, js := range []struct{ version, script, prefix string }{
		{wantSDKVersion, "client.mjs", "a2a-js-"}, {wantSDK03Version, "client03.mjs", "a2a-js-03-"},
	} {
		for _, transports := range []string{transportsDefault, transportsGRPC} {
			out = append(out, realClient{name: "a2a-js " + js.version + " " + transports, profile: js.prefix + transports,
				jsScript: js.script, jsTransports: transports})
		}
	}
	slices.SortFunc(out, func(a, b realClient) int { return strings.Compare(a.name, b.name) })
	return out
}

// realRun is what a real client did with one agent's card: the interface it picked
// (binding empty when the client does not say) and whether a message went through.
type realRun struct {
	binding, url string
	ok           bool
	raw          string
}

// impactAgents are the agents of the client-impact matrix: lab agents (a2a-go v2.4.0
// servers) with honest and lying cards in both card shapes, @a2a-js/sdk agents, and
// a2abind's own derived cards.
func impactAgents() map[string]func(t *testing.T) string {
	startLab := func(opts ...lab.Option) func(t *testing.T) string {
		return func(t *testing.T) string { return labtest.Start(t, opts...).BaseURL }
	}
	startJS := func(mode string) func(t *testing.T) string {
		return func(t *testing.T) string { return startJSServer(t, mode).BaseURL }
	}
	startGuarded := func(opts ...server.Option) func(t *testing.T) string {
		return func(t *testing.T) string { return servertest.Start(t, lab.Echo{}, opts...).BaseURL() }
	}
	v03Bindings := []lab.Option{lab.WithJSONRPC(card.V03, lab.PathJSONRPCV03), lab.WithREST(card.V03, lab.PathRESTV03)}
	return map[string]func(t *testing.T) string{
		"lab-seed-v03":    startLab(lab.Seed()...),
		"lab-seed-v1":     startLab(lab.SeedV1()...),
		"lab-healthy":     startLab(lab.Healthy()...),
		"lab-healthy-v03": startLab(lab.HealthyV03()...),
		"lab-union":       startLab(lab.Union()...),
		// Each binding declared at the other's URL.
		"lab-wrong-binding-v1": startLab(lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("wrong-binding", lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.HTTPJSON, Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathREST), Binding: lab.JSONRPC, Version: card.V1})
			})),
		"lab-wrong-binding-v03": startLab(append(v03Bindings, lab.WithCard(func(a *lab.Agent) any {
			return lab.V03Card("wrong-binding-v03", a.URL(lab.PathJSONRPCV03), lab.HTTPJSON,
				lab.Decl{URL: a.URL(lab.PathRESTV03), Binding: lab.JSONRPC})
		}))...),
		// gRPC first, at a listener with no A2A service; JSON-RPC served.
		"lab-handler-missing-v1": startLab(lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithGRPC(lab.GRPCNoService),
			lab.WithCard(func(a *lab.Agent) any {
				return lab.V1Card("handler-missing", lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1},
					lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
			})),
		"lab-handler-missing-v03": startLab(append(v03Bindings, lab.WithGRPC(lab.GRPCNoService), lab.WithCard(func(a *lab.Agent) any {
			return lab.V03Card("handler-missing-v03", a.GRPCAddr, lab.GRPC, lab.Decl{URL: a.URL(lab.PathJSONRPCV03), Binding: lab.JSONRPC})
		}))...),
		// v0.3 HTTP+JSON preferred, served at {url}/v1 (the specification's layout, a2a-go v2.4.0's).
		"lab-rest-v03": startLab(append(v03Bindings, lab.WithCard(func(a *lab.Agent) any {
			return lab.V03Card("rest-v03", a.URL(lab.PathRESTV03), lab.HTTPJSON, lab.Decl{URL: a.URL(lab.PathRESTV03), Binding: lab.HTTPJSON})
		}))...),
		// v0.3 gRPC preferred and served; the seed's card in the record's spelling ("grpc"),
		// gRPC served; an empty preferredTransport (not the absent one: a2a-js 0.3 defaults
		// only that to JSONRPC).
		"lab-grpc-v03": startLab(append(v03Bindings, lab.WithGRPC(lab.GRPCV03), lab.WithCard(func(a *lab.Agent) any {
			return lab.V03Card("grpc-v03", a.GRPCAddr, lab.GRPC, lab.Decl{URL: a.URL(lab.PathJSONRPCV03), Binding: lab.JSONRPC})
		}))...),
		"lab-seed-v03-spelled-grpc": startLab(lab.WithJSONRPC(card.V03, "/"), lab.WithGRPC(lab.GRPCV03), lab.WithCard(func(a *lab.Agent) any {
			return lab.V03Card("seed-spelled", a.BaseURL, "grpc", lab.Decl{URL: a.BaseURL, Binding: lab.JSONRPC},
				lab.Decl{URL: a.GRPCAddr, Binding: "grpc"})
		})),
		"lab-empty-preferred-v03": startLab(append(v03Bindings, lab.WithCard(func(a *lab.Agent) any {
			c := lab.V03Card("empty-preferred", a.URL(lab.PathJSONRPCV03), "", lab.Decl{URL: a.URL(lab.PathRESTV03), Binding: lab.HTTPJSON})
			c["preferredTransport"] = ""
			return c
		}))...),
		"js-seed":                    startJS(modeSeed),
		"js-grpc-at-http":            startJS(modeGRPCAtHTTP),
		"js-grpc-no-service":         startJS(modeGRPCNoService),
		"js-honest":                  startJS(modeHonest),
		"js-0.3.14-server":           startJS(modeV03Server),
		"a2abind-serve":              startGuarded(server.WithGRPCAddr("127.0.0.1:0")),
		"a2abind-serve-v03":          startGuarded(server.WithGRPCAddr("127.0.0.1:0"), server.WithV03()),
		"a2abind-serve-grpc-on-http": startGuarded(server.WithGRPCOnHTTP()),
	}
}

// TestClientImpactMatchesRealClients runs every real client a probe profile models
// (realClients) on every agent of impactAgents, and checks Diagnose's prediction for
// that profile against what the client really did: whether a message went through, and
// which interface it picked (URL, and binding where the client says). Each real client
// runs once for the whole matrix (one process per a2a-go release and per a2a-js
// release). The real client is the oracle: a mismatch is a defect of the profile.
func TestClientImpactMatchesRealClients(t *testing.T) {
	t.Parallel()
	needNode(t)
	clients := realClients(t)
	agents := impactAgents()
	names := slices.Sorted(maps.Keys(agents))
	bases := make([]string, len(names))
	reports := make([]probe.Report, len(names))
	for n, name := range names {
		bases[n] = agents[name](t)
	}
	runs := make([][]realRun, len(clients)) // client -> agent
	t.Run("run", func(t *testing.T) {
		for n, name := range names {
			t.Run("probe "+name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), probeBudget)
				defer cancel()
				c, err := card.Load(ctx, bases[n])
				if err != nil {
					t.Fatalf("card.Load(%s) = %v", bases[n], err)
				}
				reports[n] = probe.Diagnose(c, probe.Card(ctx, c, probe.WithTimeout(5*time.Second)))
			})
		}
		for g, group := range groupClients(clients) {
			t.Run(g, func(t *testing.T) {
				t.Parallel()
				for at, r := range runGroup(t, g, group, clients, bases) {
					runs[at] = r
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	var matrix strings.Builder
	for k, c := range clients {
		var oks, fails int
		for n, name := range names {
			pred, ok := impactFor(reports[n], c.profile)
			if !ok {
				t.Fatalf("Diagnose has no client profile %q (profiles: %v)", c.profile, profileNames(reports[n]))
			}
			real := runs[k][n]
			if real.ok {
				oks++
			} else {
				fails++
			}
			predIface := "none"
			if pred.Interface != nil {
				predIface = pred.Interface.String()
			}
			fmt.Fprintf(&matrix, "%-22s %-28s predicted ok=%-5v %-16s %-40s real ok=%-5v %s %s\n",
				c.name, name, pred.OK, pred.Outcome, predIface, real.ok, real.binding, real.url)
			if pred.OK != real.ok {
				t.Errorf("%s on %s: %s predicts ok = %v (%s: %s), the real client ok = %v\n%s",
					c.name, name, c.profile, pred.OK, pred.Outcome, pred.Note, real.ok, real.raw)
			}
			wantURL, wantBinding := "", ""
			if pred.Interface != nil {
				b, _ := addr.CanonicalBinding(pred.Interface.Binding)
				wantURL, wantBinding = pred.Interface.URL, string(b)
			}
			if real.url != wantURL || (real.binding != "" && real.binding != wantBinding) {
				t.Errorf("%s on %s: %s predicts %s at %q (%s), the real client picked %s at %q\n%s",
					c.name, name, c.profile, wantBinding, wantURL, pred.Note, real.binding, real.url, real.raw)
			}
		}
		// The matrix must keep showing each client both succeeding and failing.
		if oks == 0 || fails == 0 {
			t.Errorf("%s: %d successes and %d failures over the matrix, want both", c.name, oks, fails)
		}
	}
	t.Logf("client x card matrix:\n%s", matrix.String())
}

// groupClients groups the clients by the process that runs them (an a2a-go release's
// a2agoclient, or an a2a-js script), each client by its index.
func groupClients(clients []realClient) map[string][]int {
	groups := map[string][]int{}
	for k, c := range clients {
		key := "go " + c.goRelease
		if c.jsScript != "" {
			key = "js " + c.jsScript
		}
		groups[key] = append(groups[key], k)
	}
	return groups
}

// runGroup runs one process for a group of clients on every agent: by client index,
// each agent's run.
func runGroup(t *testing.T, group string, members []int, clients []realClient, bases []string) map[int][]realRun {
	out := map[int][]realRun{}
	if first := clients[members[0]]; first.jsScript != "" {
		var calls []jsCall
		for _, k := range members {
			for _, base := range bases {
				calls = append(calls, jsCall{Target: base, Transports: clients[k].jsTransports, Ops: []string{"send"}})
			}
		}
		runs := runJSScript(t, first.jsScript, calls...)
		for m, k := range members {
			for _, run := range runs[m*len(bases) : (m+1)*len(bases)] {
				out[k] = append(out[k], realRun{binding: run.Create.Transport, url: run.Create.URL,
					ok: run.Create.OK && run.Ops["send"].OK, raw: run.raw})
			}
		}
		return out
	}
	var args []string
	for _, k := range members {
		for _, base := range bases {
			args = append(args, clients[k].goConfig+"="+base)
		}
	}
	for i, r := range runA2AGoClient(t, clients[members[0]].goRelease, args...) {
		k := members[i/len(bases)]
		out[k] = append(out[k], r)
	}
	return out
}

// runA2AGoClient runs testdata/a2agoclient built against an a2a-go release with args
// (CONFIG=BASEURL each) and returns a run per argument.
func runA2AGoClient(t *testing.T, release string, args ...string) []realRun {
	t.Helper()
	bin := buildA2AGoClient(t, release)
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	stdout, err := exec.CommandContext(ctx, bin, args...).Output()
	lines := strings.Split(strings.TrimSpace(string(stdout)), "\n")
	if err != nil || len(lines) != len(args) {
		t.Fatalf("a2agoclient (a2a-go %s) = %v, %d lines for %d calls\n%s", release, err, len(lines), len(args), stdout)
	}
	out := make([]realRun, len(lines))
	for i, line := range lines {
		var r struct {
			URL string `json:"url"`
			OK  bool   `json:"ok"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("a2agoclient: bad line %q: %v", line, err)
		}
		out[i] = realRun{url: r.URL, ok: r.OK, raw: line}
	}
	return out
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
