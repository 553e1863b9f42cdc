package exporter

import (
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// series builds the gauge families of one /probe answer straight into the
// client_model form that expfmt encodes, without a prometheus.Registry: one scrape
// renders its series once, so a registry's registration checks and collection are
// pure cost. gather orders them as a registry's Gather does.
type series struct {
	families []*gaugeFamily
}

// gaugeFamily is one family of series; its label names are given in the order
// with takes their values.
type gaugeFamily struct {
	mf     dto.MetricFamily
	labels []string
	sorted []int                  // indexes of labels, by label name: a series' label order
	byKey  map[string]*seriesCell // by label values
}

// seriesCell is one series, allocated in one piece.
type seriesCell struct {
	m     dto.Metric
	g     dto.Gauge
	v     float64
	pairs [4]dto.LabelPair
	ptrs  [4]*dto.LabelPair
}

// gaugeValue is one series' value.
type gaugeValue struct{ v *float64 }

// gauge adds the family name with these label names (at most 4).
func (s *series) gauge(name, help string, labels ...string) *gaugeFamily {
	f := &gaugeFamily{labels: labels, sorted: make([]int, len(labels))}
	f.mf.Name, f.mf.Help, f.mf.Type = &name, &help, dto.MetricType_GAUGE.Enum()
	for i := range f.sorted {
		f.sorted[i] = i
	}
	slices.SortFunc(f.sorted, func(a, b int) int { return strings.Compare(labels[a], labels[b]) })
	s.families = append(s.families, f)
	return f
}

// set sets the family's one unlabelled series.
func (f *gaugeFamily) set(v float64) { f.with().set(v) }

// with is the series with these label values (as many as the family's label names),
// added at 0 when new.
func (f *gaugeFamily) with(values ...string) gaugeValue {
	key := strings.Join(values, "\xff")
	if c, ok := f.byKey[key]; ok {
		return gaugeValue{&c.v}
	}
	c := &seriesCell{}
	c.g.Value = &c.v
	c.m.Gauge = &c.g
	if len(f.labels) > 0 {
		values = slices.Clone(values)
		for i, l := range f.sorted {
			c.pairs[i].Name, c.pairs[i].Value = &f.labels[l], &values[l]
			c.ptrs[i] = &c.pairs[i]
		}
		c.m.Label = c.ptrs[:len(f.labels)]
	}
	f.mf.Metric = append(f.mf.Metric, &c.m)
	if f.byKey == nil {
		f.byKey = map[string]*seriesCell{}
	}
	f.byKey[key] = c
	return gaugeValue{&c.v}
}

func (g gaugeValue) set(v float64) { *g.v = v }
func (g gaugeValue) inc()          { *g.v++ }

// gather is the families that have a series, sorted by name, each one's series sorted
// by their label values (label names sorted), as prometheus.Registry.Gather answers.
func (s *series) gather() []*dto.MetricFamily {
	out := make([]*dto.MetricFamily, 0, len(s.families))
	for _, f := range s.families {
		if len(f.mf.Metric) > 0 {
			out = append(out, &f.mf)
		}
	}
	slices.SortFunc(out, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	for _, mf := range out {
		slices.SortFunc(mf.Metric, func(a, b *dto.Metric) int {
			for i := range a.Label { // every series of a family has its label names, in one order
				if c := strings.Compare(a.Label[i].GetValue(), b.Label[i].GetValue()); c != 0 {
					return c
				}
			}
			return 0
		})
	}
	return out
}
