package exporter

import (
	"compress/gzip"
	"net/http"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// writeSeries answers a scrape with the series mfs. A scrape that asks exactly
// "Accept-Encoding: gzip" (as Prometheus and Go clients do) and no name[] filter gets
// what promhttp.HandlerFor with its default options answers it (the format negotiated
// from Accept by the same expfmt function, the same headers, the same bytes once
// decompressed), compressed at gzip.BestSpeed by a pooled writer with no handler built
// for it: one probe's series are a few kilobytes, which the default level took about
// as long to compress as they took to build. Any other scrape is promhttp's, unchanged
// (its Accept-Encoding negotiation, the name[] filter). TestWriteSeries_AsPromhttp
// holds the two to the same answer.
func writeSeries(w http.ResponseWriter, r *http.Request, mfs []*dto.MetricFamily) {
	if !slices.Equal(r.Header.Values("Accept-Encoding"), []string{"gzip"}) || r.URL.Query().Has("name[]") {
		gathered := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return mfs, nil })
		promhttp.HandlerFor(gathered, promhttp.HandlerOpts{}).ServeHTTP(w, r)
		return
	}
	format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultAcceptedFormats()...)
	h := w.Header()
	h.Add("Vary", "Accept")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", string(format))
	h.Set("Content-Encoding", "gzip")
	gz := gzipWriters.Get().(*gzip.Writer)
	gz.Reset(w)
	defer func() {
		_ = gz.Close()
		gzipWriters.Put(gz)
	}()
	enc := expfmt.NewEncoder(gz, format)
	for _, mf := range mfs {
		if enc.Encode(mf) != nil {
			return // the answer has begun: as promhttp, stop sending
		}
	}
	if closer, ok := enc.(expfmt.Closer); ok {
		_ = closer.Close() // OpenMetrics' "# EOF" (not offered by default, as promhttp)
	}
}

var gzipWriters = sync.Pool{New: func() any {
	gz, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return gz
}}
