package exporter

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// FuzzParseConfig: any document is a config or an error, never a panic; a config
// accepted has its defaults filled in.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("modules: {default: {timeout: 3s}}"))
	f.Add([]byte("allowed_targets: ['https://.*']\nallow_link_local: true"))
	f.Add([]byte("modules: {m: {headers: {A: {value: x, prefix: 'Bearer '}}, max_interfaces: 4}}"))
	f.Add([]byte("modules: [1, 2]"))
	f.Add([]byte("allowed_targets: ['(']"))
	f.Add([]byte("&a [*a]"))
	f.Add([]byte("modules: {m: {credential_hosts: [a.example], headers: {A: {value: x}}}}\nmax_concurrent_probes: 3"))
	f.Add([]byte("alowed_targets: [x]\nmodules: {m: {timout: 1s, tls: {cafile: x}}}"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		c, err := ParseConfig(doc)
		if err != nil {
			return
		}
		if c.MaxConcurrentProbes <= 0 {
			t.Fatalf("max_concurrent_probes %d", c.MaxConcurrentProbes)
		}
		for name, m := range c.Modules {
			if len(m.Headers) > 0 && len(m.CredentialHosts) == 0 && len(c.AllowedTargets) == 0 {
				t.Fatalf("module %q sends headers with no scope", name)
			}
		}
		for name, m := range c.Modules {
			if m.Timeout <= 0 || m.MaxInterfaces <= 0 {
				t.Fatalf("module %q: timeout %s, max_interfaces %d", name, m.Timeout, m.MaxInterfaces)
			}
		}
		if _, ok := c.Modules[DefaultModule]; !ok {
			t.Fatal("no default module")
		}
	})
}

// FuzzSeries: whatever strings a card holds, the /probe answer is well-formed text the
// Prometheus parser reads back, with one up series per distinct interface.
func FuzzSeries(f *testing.F) {
	f.Add("http://a:1/x", "JSONRPC", "1.0", "interface-not-served", "error")
	f.Add("a\n\"}\\\x1b[2J", "grpc", "", "x y", "")
	f.Add("\xff\xfe", "\x00", "0.3.0", "\xff", "warning")
	f.Add(strings.Repeat("é", 400), "HTTP+JSON", "9", "", "info")
	f.Fuzz(func(t *testing.T, url, binding, version, code, severity string) {
		i := card.Interface{URL: url, Binding: a2a.TransportProtocol(binding), ProtocolVersion: version}
		p := probed{
			card:     &card.Card{Interfaces: []card.Interface{i, i}},
			declared: 2,
			results: []probe.Result{{Interface: i, Outcome: wire.Served, Latency: time.Millisecond},
				{Interface: i, Outcome: wire.Refused}},
			report:     probe.Report{Findings: []card.Finding{{Code: code, Severity: card.Severity(severity)}}},
			certExpiry: time.Unix(1e9, 0),
		}
		families := p.families()
		var buf bytes.Buffer
		enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, mf := range families {
			if err := enc.Encode(mf); err != nil {
				t.Fatalf("Encode(%s) = %v", mf.GetName(), err)
			}
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		back, err := parser.TextToMetricFamilies(&buf)
		if err != nil {
			t.Fatalf("the answer does not parse back: %v\n%s", err, buf.String())
		}
		if n := len(back[metricUp].GetMetric()); n != 1 {
			t.Fatalf("%d up series for one interface declared twice", n)
		}
	})
}
