package exporter_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

const token = "Bearer s3cret-token"

// mustConfig parses a config the test needs.
func mustConfig(t *testing.T, doc string) *exporter.Config {
	t.Helper()
	cfg, err := exporter.ParseConfig([]byte(doc))
	if err != nil {
		t.Fatalf("config refused: %v\n%s", err, doc)
	}
	return cfg
}

// TestConfig_CredentialsNeedAScope: a module that sets headers without saying where
// they may go is refused, by name; credential_hosts or allowed_targets make it valid.
func TestConfig_CredentialsNeedAScope(t *testing.T) {
	t.Setenv("A2ABIND_TEST_TOKEN", token)
	_, err := exporter.ParseConfig([]byte(`
modules:
  open: {}
  leaky:
    headers: {Authorization: {env: A2ABIND_TEST_TOKEN}}
`))
	if err == nil || !strings.Contains(err.Error(), `module "leaky"`) || !strings.Contains(err.Error(), "credential_hosts") {
		t.Errorf("a module with headers and no scope: err = %v, want it refused by name, naming credential_hosts", err)
	}
	mustConfig(t, `
modules:
  scoped:
    credential_hosts: [agents.example.com, "10.0.0.1:8443"]
    headers: {Authorization: {env: A2ABIND_TEST_TOKEN}}
`)
	mustConfig(t, `
allowed_targets: ['https://agents\.example\.com/.*']
modules:
  scoped:
    headers: {Authorization: {env: A2ABIND_TEST_TOKEN}}
`)
	if _, err := exporter.ParseConfig([]byte("modules: {m: {credential_hosts: ['https://x/']}}")); err == nil {
		t.Error("a credential_hosts entry with a scheme and path was accepted")
	}
}

// TestConfig_DidYouMean: a misspelt key is refused with the key that was meant.
func TestConfig_DidYouMean(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"allowed_target: ['x']", `field allowed_target not found in type exporter.Config; did you mean "allowed_targets"?`},
		{"max_concurent_probes: 3", `did you mean "max_concurrent_probes"?`},
		{"modules: {m: {timout: 3s}}", `did you mean "timeout"?`},
		{"modules: {m: {credential-hosts: [a]}}", `did you mean "credential_hosts"?`},
		{"modules: {m: {tls: {cafile: x}}}", `did you mean "ca_file"?`},
		{"modules: {m: {headers: {A: {fiel: x}}}}", `did you mean "file"?`},
		{"colour: blue", "the keys here are allowed_targets, max_concurrent_probes"},
	}
	for _, tt := range tests {
		_, err := exporter.ParseConfig([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.doc, err, tt.want)
		}
	}
}

// attacker is a listener on 127.0.0.2, a second origin, that answers as the healthy
// agent does (it proxies to one) and records every request it receives.
func attacker(t *testing.T) (*labtest.Origin, *lab.Agent) {
	t.Helper()
	agent := labtest.Start(t, lab.Healthy()...)
	return labtest.StartOrigin(t, "127.0.0.2", labtest.Proxy(t, agent.BaseURL)), agent
}

// cardServer serves cardJSON on 127.0.0.1 at the well-known path and redirects
// /redirect/... to redirect + the rest of the path.
func cardServer(t *testing.T, cardJSON []byte, redirect string) *labtest.Origin {
	t.Helper()
	return labtest.StartOrigin(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/redirect"); ok && redirect != "" {
			http.Redirect(w, r, redirect+rest, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(cardJSON)
	}))
}

// TestProbe_CredentialsNeverReachAnotherHost is the attack of issue 23: a /probe
// client names a host, or a card points interfaces or a redirect at one, to have the
// exporter send it a module's credentials. The attacker on 127.0.0.2 records every
// request: it receives no credential header in any case, and under allowed_targets
// nothing at all.
func TestProbe_CredentialsNeverReachAnotherHost(t *testing.T) {
	t.Setenv("A2ABIND_TEST_TOKEN", token)
	evil, _ := attacker(t)
	evilCard, _ := json.Marshal(lab.V1Card("evil",
		lab.Decl{URL: evil.URL + "/a2a", Binding: lab.JSONRPC, Version: "1.0"},
		lab.Decl{URL: evil.URL + "/rest", Binding: lab.HTTPJSON, Version: "1.0"}))
	home := cardServer(t, evilCard, evil.URL)

	byHosts := start(t, mustConfig(t, `
modules:
  default:
    credential_hosts: [127.0.0.1]
    headers: {Authorization: {env: A2ABIND_TEST_TOKEN}}
`))
	byTargets := start(t, mustConfig(t, `
allowed_targets: ['http://127\.0\.0\.1:[0-9]+(/.*)?']
modules:
  default:
    headers: {Authorization: {env: A2ABIND_TEST_TOKEN}}
`))

	tests := []struct {
		name, base, target string
		status             int
		want               string
	}{
		{"target named by the client, credential_hosts", byHosts, evil.URL, 403, "credential_hosts"},
		{"target named by the client, allowed_targets", byTargets, evil.URL, 403, "allowed_targets"},
		{"interfaces on the other host, credential_hosts", byHosts, home.URL, 200, ""},
		{"interfaces on the other host, allowed_targets", byTargets, home.URL, 200, ""},
		{"card redirect to the other host, credential_hosts", byHosts, home.URL + "/redirect", 200, ""},
		{"card redirect to the other host, allowed_targets", byTargets, home.URL + "/redirect", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := scrape(t, tt.base, probePath(tt.target))
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("GET /probe?target=%s = %d %q, want %d %q", tt.target, status, body, tt.status, tt.want)
			}
			if strings.Contains(body, "s3cret") {
				t.Error("the answer shows the token")
			}
		})
	}
	if n := evil.Carrying("Authorization"); n != 0 {
		t.Errorf("the attacker on 127.0.0.2 received the credential %d times", n)
	}
	// It did receive the credential_hosts module's probes without it: the test saw
	// the requests it asserts about.
	if len(evil.Requests()) == 0 {
		t.Error("the attacker received no request at all: the credential_hosts cases did not reach it")
	}
	if home.Carrying("Authorization") == 0 {
		t.Error("the card's own host never received the credential: the modules sent none")
	}
}

// TestProbe_AllowedTargetsBoundRedirectsAndInterfaces: under allowed_targets a card
// redirect and interfaces on a host the list does not match are not followed or
// dialled (outcome blocked, the host receives nothing); an interface on the target's
// origin, and one elsewhere whose origin matches a pattern, are probed.
func TestProbe_AllowedTargetsBoundRedirectsAndInterfaces(t *testing.T) {
	t.Parallel()
	evil, agent := attacker(t)
	mixed, _ := json.Marshal(lab.V1Card("mixed",
		lab.Decl{URL: agent.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: "1.0"},
		lab.Decl{URL: agent.GRPCAddr, Binding: lab.GRPC, Version: "1.0"},
		lab.Decl{URL: evil.URL + "/a2a", Binding: lab.JSONRPC, Version: "1.0"}))
	home := cardServer(t, mixed, evil.URL)
	base := start(t, mustConfig(t, `allowed_targets: ['http://127\.0\.0\.1(:[0-9]+)?(/.*)?']`))

	_, _, f := scrape(t, base, probePath(home.URL))
	mustValue(t, f, "a2abind_interface_up", ifaceLabels(agent.URL(lab.PathJSONRPC), "JSONRPC", "1.0"), 1)
	// A bare gRPC host:port matches by its origin form, http://127.0.0.1:port.
	mustValue(t, f, "a2abind_interface_up", ifaceLabels(agent.GRPCAddr, "GRPC", "1.0"), 1)
	l := ifaceLabels(evil.URL+"/a2a", "JSONRPC", "1.0")
	l["outcome"] = "blocked"
	mustValue(t, f, "a2abind_interface_outcome", l, 1)
	mustValue(t, f, "probe_success", nil, 0)

	_, _, r := scrape(t, base, probePath(home.URL+"/redirect"))
	mustValue(t, r, "a2abind_card_fetch_success", nil, 0)
	if n := len(evil.Requests()); n != 0 {
		t.Errorf("the host outside allowed_targets received %d requests", n)
	}
	if len(home.Requests()) < 2 {
		t.Error("the card server did not see the two card fetches")
	}
}

// TestProbe_ConcurrencyCap: 100 concurrent scrapes of a large card against
// max_concurrent_probes 4: four reach the card server, the other 96 wait half of their
// 1 s scrape time and are answered 503 with Retry-After (while the four are held), and
// the heap stays far from the 650 MB that 100 unbounded probes took.
func TestProbe_ConcurrencyCap(t *testing.T) {
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	var decls []lab.Decl
	for i := range 150 {
		decls = append(decls, lab.Decl{URL: fmt.Sprintf("http://%s/%d/%s", closed, i, strings.Repeat("p", 2800)), Binding: lab.JSONRPC, Version: "1.0"})
	}
	big, _ := json.Marshal(lab.V1Card("big", decls...))
	const limit, scrapes = 4, 100
	var inFlight, peak atomic.Int64
	release := make(chan struct{})
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(big)
	}))
	t.Cleanup(cards.Close)
	base := start(t, mustConfig(t, fmt.Sprintf("max_concurrent_probes: %d", limit)))

	var heapPeak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > heapPeak.Load() {
				heapPeak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	var wg sync.WaitGroup
	var ok, busy atomic.Int64
	var once sync.Once
	for range scrapes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodGet, base+probePath(cards.URL), nil)
			req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				ok.Add(1)
			case http.StatusServiceUnavailable:
				if resp.Header.Get("Retry-After") == "" {
					t.Error("503 without Retry-After")
				}
				if busy.Add(1) == scrapes-limit {
					once.Do(func() { close(release) }) // every excess scrape answered while four are held
				}
			default:
				t.Errorf("status %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	once.Do(func() { close(release) })
	close(stop)
	<-sampled
	if ok.Load() != limit || busy.Load() != scrapes-limit {
		t.Errorf("%d answered 200 and %d 503, want %d and %d", ok.Load(), busy.Load(), limit, scrapes-limit)
	}
	if p := peak.Load(); p > limit {
		t.Errorf("the card server saw %d fetches at once, over max_concurrent_probes %d", p, limit)
	}
	grown := int64(heapPeak.Load()) - int64(before.HeapAlloc)
	t.Logf("card %d KiB, %d scrapes, cap %d: heap peak +%d MiB", len(big)>>10, scrapes, limit, grown>>20)
	if grown > 200<<20 {
		t.Errorf("the heap grew %d MiB under the cap", grown>>20)
	}
	_, body, _ := scrape(t, base, "/metrics")
	if !strings.Contains(body, fmt.Sprintf(`a2abind_exporter_probes_total{module="default",result="busy"} %d`, scrapes-limit)) {
		t.Errorf("/metrics does not count %d busy probes:\n%s", scrapes-limit, body)
	}
}

// TestProbe_BurstWaitsForASlot: 50 concurrent scrapes against max_concurrent_probes 4,
// of an agent whose card takes 20 ms: every scrape waits for a slot and is answered
// 200, none refused, and the agent never sees more than four probes at once.
func TestProbe_BurstWaitsForASlot(t *testing.T) {
	const limit, scrapes = 4, 50
	var inFlight, peak atomic.Int64
	agent := labtest.Start(t, lab.Healthy()...)
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		resp, err := http.Get(agent.BaseURL + card.WellKnownPath)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(cards.Close)
	base := start(t, mustConfig(t, fmt.Sprintf("max_concurrent_probes: %d", limit)))
	var wg sync.WaitGroup
	var refused atomic.Int64
	for range scrapes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodGet, base+probePath(cards.URL), nil)
			req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "30")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				refused.Add(1)
			}
		}()
	}
	wg.Wait()
	if refused.Load() != 0 {
		t.Errorf("%d of %d scrapes were not answered 200", refused.Load(), scrapes)
	}
	if p := peak.Load(); p > limit {
		t.Errorf("the card server saw %d fetches at once, over max_concurrent_probes %d", p, limit)
	}
}
