package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/a2abind/a2abind/exporter"
)

// shippedRules is the alerting rules file deploy/ ships.
var shippedRules = filepath.Join("..", "deploy", "prometheus", "a2abind-rules.yml")

// referenceAgent is one SDK's own reference agent, as its users first run it.
type referenceAgent struct {
	name  string
	start func(t *testing.T) string // base URL
	// breaks, when set, is a client the agent's card really breaks: it runs that client
	// against the agent and returns its name and what it got (an error: it failed).
	breaks func(t *testing.T, base string) (client string, err error)
}

// referenceAgents are the reference agents of every SDK here: a2a-go's `a2a serve
// --echo` of the field release and the module's, in each transport (--transport rest,
// jsonrpc, grpc) and protocol mode (--protocol latest, 0.3); the @a2a-js/sdk 1.3.0
// sample server (server.mjs, honest card) and the 0.3.14 one (server03.mjs). serve's
// --card-compat is no mode of its own: without --card it answers the card with HTTP
// 500 in both releases (a2av0 finds no 0.3 interface in the card it built).
//
// --protocol 0.3 serves 0.3 under a card that says 1.0 (TestA2AGoCLIVersionDrift): a
// client that trusts the card speaks 1.0 and fails, which breaks shows with the release's
// own `a2a send`.
func referenceAgents(t *testing.T) []referenceAgent {
	var out []referenceAgent
	for _, release := range a2aGoReleases(t) {
		for _, transport := range []string{"rest", "jsonrpc", "grpc"} {
			for _, protocol := range []string{"latest", "0.3"} {
				args := []string{"--echo", "--protocol", protocol}
				if transport != "rest" {
					args = append([]string{"--transport", transport}, args...)
				}
				a := referenceAgent{
					name:  fmt.Sprintf("a2a-go %s serve %s", release, strings.Join(args, " ")),
					start: func(t *testing.T) string { return startA2AGoServe(t, buildA2AGoCLI(t, release), args...) },
				}
				if protocol == "0.3" {
					a.breaks = func(t *testing.T, base string) (string, error) {
						return "a2a-go " + release + " `a2a send`", a2aGoSend(t, release, base)
					}
				}
				out = append(out, a)
			}
		}
	}
	for _, mode := range []string{modeHonest, modeV03Server} {
		out = append(out, referenceAgent{
			name:  "a2a-js " + map[string]string{modeHonest: wantSDKVersion + " server.mjs", modeV03Server: wantSDK03Version + " server03.mjs"}[mode],
			start: func(t *testing.T) string { return startJSServer(t, mode).BaseURL },
		})
	}
	return out
}

// a2aGoSend sends a message with a release's own `a2a send` (its default client, which
// trusts the card) and returns an error unless the echo came back.
func a2aGoSend(t *testing.T, release, base string) error {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, buildA2AGoCLI(t, release), "send", "--insecure", base, "hello reference").CombinedOutput()
	if err == nil && !strings.Contains(string(out), "hello reference") {
		err = fmt.Errorf("no echo in %q", out)
	}
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// TestReferenceAgentsPass: the reference agent of every SDK here passes probe (exit 0),
// the exporter's /probe (probe_success 1) and the shipped alert rules (none fires,
// evaluated by promtool over the exporter's series), unless its card really breaks a
// client; then probe fails and the test shows that client failing. Spec-only deviations
// (a2a-go v2.4.0's "skills": [], v2.3.1's null lists, a2a-js 0.3.14's gRPC INTERNAL for
// an unknown task) are warnings.
func TestReferenceAgentsPass(t *testing.T) {
	t.Parallel()
	cfg, err := exporter.ParseConfig([]byte("modules: {default: {timeout: 20s}}"))
	if err != nil {
		t.Fatal(err)
	}
	x := exporter.New(cfg)
	srv := httptest.NewServer(x)
	t.Cleanup(func() {
		srv.Close()
		_ = x.Close()
	})
	var mu sync.Mutex
	series := map[string]string{} // instance -> the /probe exposition of an agent that must not alert
	t.Run("agents", func(t *testing.T) {
		for _, a := range referenceAgents(t) {
			t.Run(a.name, func(t *testing.T) {
				t.Parallel()
				base := a.start(t)
				out, code := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", base)
				var p probeOutput
				if err := json.Unmarshal(out, &p); err != nil {
					t.Fatalf("probe -o json: %v\n%s", err, out)
				}
				body := scrapeProbe(t, srv.URL, base)
				success := strings.Contains(body, "\nprobe_success 1\n")
				if a.breaks != nil {
					client, err := a.breaks(t, base)
					if err == nil {
						t.Errorf("%s succeeds, but the test says the card breaks it", client)
					} else {
						t.Logf("%s fails, as the card makes it: %v", client, err)
					}
					if code != 1 || success {
						t.Errorf("probe = exit %d, probe_success %v; want exit 1 and 0 on a card that breaks %s\n%s", code, success, client, out)
					}
					return
				}
				if code != 0 || !p.OK || !success {
					t.Errorf("probe = exit %d, ok %v, probe_success %v; want exit 0, ok, probe_success 1\n%s\n%s", code, p.OK, success, out, body)
				}
				mu.Lock()
				series[a.name] = body
				mu.Unlock()
			})
		}
	})
	if len(series) == 0 {
		t.Fatal("no agent passed: nothing to evaluate the alert rules on")
	}
	if fired := firingAlerts(t, series); len(fired) > 0 {
		t.Errorf("the shipped alert rules fire on healthy reference agents:\n%s", strings.Join(fired, "\n"))
	}
}

// scrapeProbe is the exporter's /probe answer for target.
func scrapeProbe(t *testing.T, exporterURL, target string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, exporterURL+"/probe?target="+url.QueryEscape(target), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/probe?target=%s: %d %v\n%s", target, resp.StatusCode, err, b)
	}
	return "\n" + string(b)
}

// firingAlerts evaluates every alert of the shipped rules file with promtool over the
// series (each agent's /probe exposition, held constant for three hours, labelled with
// its instance), and returns the alerts promtool says fire.
func firingAlerts(t *testing.T, series map[string]string) []string {
	t.Helper()
	bin := promtool(t)
	raw, err := os.ReadFile(shippedRules)
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &rules); err != nil {
		t.Fatal(err)
	}
	type alertTest struct {
		EvalTime  string `yaml:"eval_time"`
		Alertname string `yaml:"alertname"`
		ExpAlerts []any  `yaml:"exp_alerts"`
	}
	var tests []alertTest
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				tests = append(tests, alertTest{"3h", r.Alert, []any{}})
			}
		}
	}
	type inputSeries struct {
		Series string `yaml:"series"`
		Values string `yaml:"values"`
	}
	var input []inputSeries
	for instance, body := range series {
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: /probe answer: %v", instance, err)
		}
		for name, f := range families {
			for _, m := range f.GetMetric() {
				v, ok := sampleValue(m)
				if !ok {
					continue
				}
				labels := []string{`instance=` + strconv.Quote(instance), `job="a2abind"`}
				for _, l := range m.GetLabel() {
					labels = append(labels, l.GetName()+"="+strconv.Quote(l.GetValue()))
				}
				input = append(input, inputSeries{name + "{" + strings.Join(labels, ",") + "}",
					strconv.FormatFloat(v, 'g', -1, 64) + "+0x180"})
			}
		}
	}
	abs, err := filepath.Abs(shippedRules)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := yaml.Marshal(map[string]any{
		"rule_files":          []string{abs},
		"evaluation_interval": "1m",
		"tests":               []any{map[string]any{"interval": "1m", "input_series": input, "alert_rule_test": tests}},
	})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "reference.test.yml")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), bin, "test", "rules", file).CombinedOutput()
	if err == nil {
		return nil
	}
	var fired []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "alertname") || strings.Contains(line, "got:") {
			fired = append(fired, strings.TrimSpace(line))
		}
	}
	if len(fired) == 0 {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
	return slices.Compact(fired)
}

// sampleValue is a gauge's, counter's or untyped sample's value (NaN and infinities are
// left out: no shipped rule reads them, and promtool's series notation has none).
func sampleValue(m *dto.Metric) (float64, bool) {
	var v float64
	switch {
	case m.Gauge != nil:
		v = m.GetGauge().GetValue()
	case m.Counter != nil:
		v = m.GetCounter().GetValue()
	case m.Untyped != nil:
		v = m.GetUntyped().GetValue()
	default:
		return 0, false
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	return v, !strings.ContainsAny(s, "IN")
}

// promtool is Debian's promtool (the prometheus package the exporter's tests install).
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatalf("promtool is not on PATH: install Debian's prometheus package (sudo apt-get install -y prometheus), as ./test.sh does for the exporter's tests")
	}
	return p
}
