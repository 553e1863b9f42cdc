package exporter_test

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a connection, channel or server left open.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// start serves an exporter for cfg (the default config when nil) on loopback.
func start(t *testing.T, cfg *exporter.Config) string {
	t.Helper()
	x := exporter.New(cfg)
	srv := httptest.NewServer(x)
	t.Cleanup(func() {
		srv.Close()
		_ = x.Close()
	})
	return srv.URL
}

// scrape is one GET with the headers Prometheus sends; it returns the status, the body
// and, for a 200, the parsed series.
func scrape(t *testing.T, base, path string, header ...string) (int, string, map[string]*dto.MetricFamily) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		return resp.StatusCode, string(body), nil
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("the answer is not the Prometheus text format: %v\n%s", err, body)
	}
	return resp.StatusCode, string(body), families
}

func probePath(target string, module ...string) string {
	q := url.Values{"target": {target}}
	if len(module) > 0 {
		q.Set("module", module[0])
	}
	return "/probe?" + q.Encode()
}

// value is the value of the series of family name whose labels include want; ok is
// false when there is none.
func value(families map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f := families[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}

func mustValue(t *testing.T, families map[string]*dto.MetricFamily, name string, labels map[string]string, want float64) {
	t.Helper()
	got, ok := value(families, name, labels)
	if !ok {
		t.Errorf("no series %s%v", name, labels)
		return
	}
	if got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

func ifaceLabels(u, binding, version string) map[string]string {
	return map[string]string{"url": u, "binding": binding, "protocol_version": version}
}

// TestProbe_HealthyAndSeed scrapes the healthy agent and the seed incident's: the
// healthy one succeeds with every interface up; the seed fails, its gRPC interfaces are
// down with the outcome observed, and the wire findings are counted by code.
func TestProbe_HealthyAndSeed(t *testing.T) {
	t.Parallel()
	healthy := labtest.Start(t, lab.Healthy()...)
	seed := labtest.Start(t, lab.Seed()...)
	base := start(t, nil)

	_, _, h := scrape(t, base, probePath(healthy.BaseURL))
	mustValue(t, h, "probe_success", nil, 1)
	mustValue(t, h, "a2abind_card_fetch_success", nil, 1)
	mustValue(t, h, "a2abind_card_interfaces", nil, 3)
	for _, l := range []map[string]string{
		ifaceLabels(healthy.URL(lab.PathJSONRPC), "JSONRPC", "1.0"),
		ifaceLabels(healthy.GRPCAddr, "GRPC", "1.0"),
		ifaceLabels(healthy.URL(lab.PathREST), "HTTP+JSON", "1.0"),
	} {
		mustValue(t, h, "a2abind_interface_up", l, 1)
		l["outcome"] = "served"
		mustValue(t, h, "a2abind_interface_outcome", l, 1)
	}
	mustValue(t, h, "a2abind_findings", map[string]string{"severity": "error"}, 0)
	mustValue(t, h, "a2abind_findings_by_code", map[string]string{"code": "preferred-not-served"}, 0)
	if _, ok := value(h, "probe_ssl_earliest_cert_expiry", nil); ok {
		t.Error("probe_ssl_earliest_cert_expiry on a plaintext agent")
	}
	if d, _ := value(h, "probe_duration_seconds", nil); d <= 0 {
		t.Errorf("probe_duration_seconds = %v", d)
	}

	_, _, s := scrape(t, base, probePath(seed.BaseURL))
	mustValue(t, s, "probe_success", nil, 0)
	mustValue(t, s, "a2abind_card_fetch_success", nil, 1)
	mustValue(t, s, "a2abind_interface_up", ifaceLabels(seed.BaseURL, "GRPC", "0.3"), 0)
	mustValue(t, s, "a2abind_interface_up", ifaceLabels(seed.BaseURL, "JSONRPC", "0.3"), 1)
	mustValue(t, s, "a2abind_interface_up", ifaceLabels(seed.GRPCAddr, "GRPC", "0.3"), 0)
	for outcome, want := range map[string]float64{"wrong_binding": 1, "served": 0, "handler_missing": 0} {
		l := ifaceLabels(seed.BaseURL, "GRPC", "0.3")
		l["outcome"] = outcome
		mustValue(t, s, "a2abind_interface_outcome", l, want)
	}
	l := ifaceLabels(seed.GRPCAddr, "GRPC", "0.3")
	l["outcome"] = "handler_missing"
	mustValue(t, s, "a2abind_interface_outcome", l, 1)
	mustValue(t, s, "a2abind_findings_by_code", map[string]string{"code": "preferred-not-served"}, 1)
	mustValue(t, s, "a2abind_findings_by_code", map[string]string{"code": "interface-not-served"}, 2)
	if n, _ := value(s, "a2abind_findings", map[string]string{"severity": "error"}); n < 3 {
		t.Errorf("a2abind_findings{severity=error} = %v, want the wire and lint errors", n)
	}

	_, _, self := scrape(t, base, "/metrics")
	mustValue(t, self, "a2abind_exporter_probes_total", map[string]string{"module": "default", "result": "success"}, 1)
	mustValue(t, self, "a2abind_exporter_probes_total", map[string]string{"module": "default", "result": "failure"}, 1)
	for _, name := range []string{"go_goroutines", "a2abind_exporter_connections_opened_total", "a2abind_exporter_probe_duration_seconds"} {
		if self[name] == nil {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}

// TestProbe_NoCard: a target whose card cannot be obtained is probe_success 0 with
// the card fetch failed, not an HTTP error (the scrape itself worked).
func TestProbe_NoCard(t *testing.T) {
	t.Parallel()
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, _, f := scrape(t, start(t, nil), probePath("http://"+closed))
	mustValue(t, f, "probe_success", nil, 0)
	mustValue(t, f, "a2abind_card_fetch_success", nil, 0)
	if _, ok := value(f, "a2abind_interface_up", nil); ok {
		t.Error("interface series without a card")
	}
}

// TestProbe_Refused: requests the exporter must not probe get a 4xx naming why, and
// nothing is fetched.
func TestProbe_Refused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	agent := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(agent.Close)
	cfg, err := exporter.ParseConfig([]byte(`allowed_targets: ['http://127\.0\.0\.1:1/.*']`))
	if err != nil {
		t.Fatal(err)
	}
	strict := start(t, cfg)
	open := start(t, nil)
	u, _ := url.Parse(agent.URL)
	tests := []struct {
		name, base, path string
		status           int
		want             string
	}{
		{"no target", open, "/probe", 400, "target parameter is missing"},
		{"unknown module", open, probePath(agent.URL, "nope"), 400, `unknown module "nope"`},
		{"a file", open, probePath("/etc/passwd"), 403, "not an http:// or https:// URL"},
		{"upper-case scheme read as a file by card.Load", open, probePath("HTTP://" + u.Host), 403, "not an http:// or https:// URL"},
		{"user info", open, probePath("http://user:secret@" + u.Host), 403, "user information"},
		{"a huge target", open, probePath(agent.URL + "/" + strings.Repeat("a", 5000)), 403, "over 4096"},
		{"not in the allow-list", strict, probePath(agent.URL), 403, "matches none of allowed_targets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, _ := scrape(t, tt.base, tt.path)
			if status != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("GET %s = %d %q, want %d and %q", tt.path, status, body, tt.status, tt.want)
			}
			if strings.Contains(body, "secret") {
				t.Errorf("the answer repeats the password: %q", body)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the agent got %d requests from refused probes", n)
	}
}

// countingListener is a loopback listener that counts the connections it accepts and
// answers nothing useful.
func countingListener(t *testing.T) (port string, accepted *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = &atomic.Int64{}
	srv := &http.Server{Handler: http.NotFoundHandler(), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	_, port, _ = net.SplitHostPort(l.Addr().String())
	return port, accepted
}

// TestProbe_DeniedAddresses: interfaces a card names at the unspecified address (which
// Linux connects to the local host) are not dialled, and neither is a card redirect
// there: the listener behind counts no connection, and the detail names the policy.
func TestProbe_DeniedAddresses(t *testing.T) {
	t.Parallel()
	port, accepted := countingListener(t)
	denied := "http://0.0.0.0:" + port
	cardJSON, err := json.Marshal(lab.V1Card("denied",
		lab.Decl{URL: denied + "/a2a", Binding: lab.JSONRPC, Version: "1.0"},
		lab.Decl{URL: "0.0.0.0:" + port, Binding: lab.GRPC, Version: "1.0"}))
	if err != nil {
		t.Fatal(err)
	}
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect" + card.WellKnownPath:
			http.Redirect(w, r, denied+card.WellKnownPath, http.StatusFound)
			return
		case card.WellKnownPath:
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(cardJSON)
	}))
	t.Cleanup(cards.Close)
	base := start(t, nil)

	_, _, f := scrape(t, base, probePath(cards.URL))
	mustValue(t, f, "probe_success", nil, 0)
	for _, l := range []map[string]string{
		ifaceLabels(denied+"/a2a", "JSONRPC", "1.0"),
		ifaceLabels("0.0.0.0:"+port, "GRPC", "1.0"),
	} {
		mustValue(t, f, "a2abind_interface_up", l, 0)
		l["outcome"] = "blocked"
		mustValue(t, f, "a2abind_interface_outcome", l, 1)
	}
	_, _, r := scrape(t, base, probePath(cards.URL+"/redirect"))
	mustValue(t, r, "a2abind_card_fetch_success", nil, 0)
	_, _, d := scrape(t, base, probePath(denied))
	mustValue(t, d, "a2abind_card_fetch_success", nil, 0)
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listener behind 0.0.0.0 accepted %d connections", n)
	}
}

// TestProbe_ModuleHeadersAndTLS: a module's credentials, read from a file and from the
// environment, turn auth_required into served; its TLS setting accepts the lab's
// self-signed certificate, whose expiry is exported.
func TestProbe_ModuleHeadersAndTLS(t *testing.T) {
	a := labtest.Start(t, append(lab.Healthy(), lab.WithAuth("s3cret"), lab.WithTLS())...)
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABIND_TEST_TOKEN", "Bearer s3cret")
	cfg, err := exporter.ParseConfig(fmt.Appendf(nil, `
modules:
  file:
    credential_hosts: [127.0.0.1]
    headers: {Authorization: {file: %q, prefix: "Bearer "}}
    tls: {insecure_skip_verify: true}
  env:
    credential_hosts: [127.0.0.1]
    headers: {Authorization: {env: A2ABIND_TEST_TOKEN}}
    tls: {insecure_skip_verify: true}
  none:
    tls: {insecure_skip_verify: true}
`, token))
	if err != nil {
		t.Fatal(err)
	}
	base := start(t, cfg)
	conn, err := tls.Dial("tcp", a.HTTPAddr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reading the lab's certificate
	if err != nil {
		t.Fatal(err)
	}
	notAfter := conn.ConnectionState().PeerCertificates[0].NotAfter
	_ = conn.Close()

	jsonrpc := ifaceLabels(a.URL(lab.PathJSONRPC), "JSONRPC", "1.0")
	for module, want := range map[string]float64{"file": 1, "env": 1, "none": 0} {
		_, body, f := scrape(t, base, probePath(a.BaseURL, module))
		mustValue(t, f, "a2abind_interface_up", jsonrpc, want)
		mustValue(t, f, "probe_ssl_earliest_cert_expiry", nil, float64(notAfter.Unix()))
		if strings.Contains(body, "s3cret") {
			t.Errorf("module %s: the answer shows the token", module)
		}
	}
}

// TestProbe_ScrapeTimeout: with interfaces that never answer, the answer comes within
// the scrape timeout Prometheus sends, though the module allows a minute.
func TestProbe_ScrapeTimeout(t *testing.T) {
	t.Parallel()
	silent, err := lab.Listen(lab.Silent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = silent.Close() })
	cardJSON, _ := json.Marshal(lab.V1Card("silent",
		lab.Decl{URL: "http://" + silent.Addr + "/a2a", Binding: lab.JSONRPC, Version: "1.0"},
		lab.Decl{URL: silent.Addr, Binding: lab.GRPC, Version: "1.0"}))
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(cardJSON)
	}))
	t.Cleanup(cards.Close)
	cfg, err := exporter.ParseConfig([]byte("modules: {default: {timeout: 1m}}"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, f := scrape(t, start(t, cfg), probePath(cards.URL), "X-Prometheus-Scrape-Timeout-Seconds", "3")
	mustValue(t, f, "probe_success", nil, 0)
	if d, _ := value(f, "probe_duration_seconds", nil); d >= 3 {
		t.Errorf("probe_duration_seconds = %v, over the 3 s scrape timeout", d)
	}
	l := ifaceLabels("http://"+silent.Addr+"/a2a", "JSONRPC", "1.0")
	l["outcome"] = "timeout"
	mustValue(t, f, "a2abind_interface_outcome", l, 1)
}

// TestProbe_HostileCard: a card with a thousand interfaces and URLs holding control
// characters and invalid UTF-8 still gives a well-formed answer, with the interfaces
// bounded by max_interfaces.
func TestProbe_HostileCard(t *testing.T) {
	t.Parallel()
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	decls := []lab.Decl{{URL: "http://" + closed + "/a\n\"}\x1b[2J\xff", Binding: lab.JSONRPC, Version: "1.0"}}
	for i := range 1000 {
		long := ""
		if i < 8 {
			long = strings.Repeat("x", 4000) // over the label bound
		}
		decls = append(decls, lab.Decl{URL: fmt.Sprintf("http://%s/%d%s", closed, i, long), Binding: lab.JSONRPC, Version: "1.0"})
	}
	cardJSON, _ := json.Marshal(lab.V1Card("hostile", decls...))
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(cardJSON)
	}))
	t.Cleanup(cards.Close)
	_, _, f := scrape(t, start(t, nil), probePath(cards.URL))
	mustValue(t, f, "a2abind_card_interfaces", nil, 1001)
	if n := len(f["a2abind_interface_up"].GetMetric()); n != addr.DefaultMaxInterfaces {
		t.Errorf("%d interface series, want %d (max_interfaces)", n, addr.DefaultMaxInterfaces)
	}
	for _, m := range f["a2abind_interface_up"].GetMetric() {
		for _, l := range m.GetLabel() {
			if len(l.GetValue()) > 600 {
				t.Errorf("label %s is %d bytes long", l.GetName(), len(l.GetValue()))
			}
		}
	}
}

// TestProbe_ReusesConnections: scrape after scrape, the exporter reuses its
// connections to an agent that keeps them open: six scrapes of the healthy agent open
// at most one connection per request that can be in flight at once (the card fetch,
// JSON-RPC and HTTP+JSON on the HTTP port: the card's check starts while its card is
// fetched again; the gRPC channel), not four per scrape.
func TestProbe_ReusesConnections(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	base := start(t, nil)
	for range 6 {
		_, _, f := scrape(t, base, probePath(a.BaseURL))
		mustValue(t, f, "probe_success", nil, 1)
	}
	_, _, f := scrape(t, base, "/metrics")
	if v, _ := value(f, "a2abind_exporter_connections_opened_total", nil); v == 0 || v > 4 {
		t.Errorf("six scrapes opened %v connections, want 1 to 4", v)
	}
}
