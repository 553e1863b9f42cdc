package exporter

import (
	"cmp"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// series builds the gauge families of one /probe answer straight into the
// client_model form that expfmt encodes, without a prometheus.Registry: one scrape
// renders its series once, so a registry's registration checks and collection are
// pure cost. gather orders them as a registry's Gather does.
type series struct {
	families []*dto.MetricFamily
	byKey    map[string]*dto.Metric // by family name and label values
}

// gaugeFamily is one family of series; its label names are given in the order
// with takes their values.
type gaugeFamily struct {
	s      *series
	mf     *dto.MetricFamily
	labels []string
}

// gaugeValue is one series' value.
type gaugeValue struct{ v *float64 }

// gauge adds the family name with these label names.
func (s *series) gauge(name, help string, labels ...string) gaugeFamily {
	mf := &dto.MetricFamily{Name: &name, Help: &help, Type: dto.MetricType_GAUGE.Enum()}
	s.families = append(s.families, mf)
	return gaugeFamily{s: s, mf: mf, labels: labels}
}

// set sets the family's one unlabelled series.
func (f gaugeFamily) set(v float64) { f.with().set(v) }

// with is the series with these label values (as many as the family's label names),
// added at 0 when new.
func (f gaugeFamily) with(values ...string) gaugeValue {
	key := f.mf.GetName() + "\xff" + strings.Join(values, "\xff")
	if m, ok := f.s.byKey[key]; ok {
		return gaugeValue{m.Gauge.Value}
	}
	m := &dto.Metric{Gauge: &dto.Gauge{Value: new(float64)}}
	if len(f.labels) > 0 {
		m.Label = make([]*dto.LabelPair, len(f.labels))
		for i := range f.labels {
			m.Label[i] = &dto.LabelPair{Name: &f.labels[i], Value: &values[i]}
		}
		slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
	}
	f.mf.Metric = append(f.mf.Metric, m)
	if f.s.byKey == nil {
		f.s.byKey = map[string]*dto.Metric{}
	}
	f.s.byKey[key] = m
	return gaugeValue{m.Gauge.Value}
}

func (g gaugeValue) set(v float64) { *g.v = v }
func (g gaugeValue) inc()          { *g.v++ }

// gather is the families that have a series, sorted by name, each one's series sorted
// by their label values (label names sorted), as prometheus.Registry.Gather answers.
func (s *series) gather() []*dto.MetricFamily {
	out := slices.DeleteFunc(s.families, func(mf *dto.MetricFamily) bool { return len(mf.Metric) == 0 })
	slices.SortFunc(out, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	for _, mf := range out {
		slices.SortFunc(mf.Metric, func(a, b *dto.Metric) int {
			if c := cmp.Compare(len(a.Label), len(b.Label)); c != 0 {
				return c
			}
			for i := range a.Label {
				if c := strings.Compare(a.Label[i].GetValue(), b.Label[i].GetValue()); c != 0 {
					return c
				}
			}
			return 0
		})
	}
	return out
}
