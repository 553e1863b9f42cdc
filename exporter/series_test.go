package exporter

import (
	"bytes"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestSeriesGatherAsRegistry: the series a /probe answer renders without a registry
// are, byte for byte, what a prometheus.Registry holding the same series gathers
// (families by name, series by label values, label pairs by name), so dropping the
// registry changed nothing a scraper sees.
func TestSeriesGatherAsRegistry(t *testing.T) {
	got := sampleProbe("http://a:1/").families()

	reg := prometheus.NewRegistry()
	for _, mf := range got {
		var names []string
		for _, l := range mf.Metric[0].Label {
			names = append(names, l.GetName())
		}
		vec := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: mf.GetName(), Help: mf.GetHelp()}, names)
		for i := len(mf.Metric) - 1; i >= 0; i-- { // the registry is given them out of order
			m := mf.Metric[i]
			labels := prometheus.Labels{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			vec.With(labels).Set(m.GetGauge().GetValue())
		}
		reg.MustRegister(vec)
	}
	want, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if g, w := encodeText(t, got), encodeText(t, want); g != w {
		t.Errorf("families() =\n%s\nregistry gathers =\n%s", g, w)
	}
}

// sampleProbe is a probe of two interfaces (the second at aURL), one served and one
// refused, with two findings.
func sampleProbe(aURL string) probed {
	b := card.Interface{URL: "http://b:1/", Binding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"}
	a := card.Interface{URL: aURL, Binding: a2a.TransportProtocolGRPC, ProtocolVersion: "0.3"}
	return probed{
		card:     &card.Card{Interfaces: []card.Interface{b, a}},
		declared: 2,
		results: []probe.Result{{Interface: b, Outcome: wire.Served, Latency: time.Millisecond},
			{Interface: a, Outcome: wire.Refused, Latency: 2 * time.Millisecond}},
		report: probe.Report{Findings: []card.Finding{{Code: "z-code", Severity: card.SeverityWarning},
			{Code: "a-code", Severity: card.SeverityError}}},
		certExpiry: time.Unix(1e9, 0),
	}
}

func encodeText(t *testing.T, mfs []*dto.MetricFamily) string {
	t.Helper()
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String()
}
