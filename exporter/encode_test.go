package exporter

import (
	"bytes"
	"compress/gzip"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// TestWriteSeries_AsPromhttp: a probe's answer written by writeSeries has the status,
// headers and (decompressed) bytes promhttp.HandlerFor's default handler gives the same
// series, for every format a scraper may ask (Prometheus' own Accept header, text,
// protobuf, OpenMetrics, none, UTF-8 escaping) and every Accept-Encoding, and with a
// name[] filter; the Accept-Encoding Prometheus sends gets the pooled BestSpeed writer.
func TestWriteSeries_AsPromhttp(t *testing.T) {
	mfs := sampleProbe("http://a:1/\"x\"\n").families() // a label to escape
	gathered := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) { return mfs, nil })
	reference := promhttp.HandlerFor(gathered, promhttp.HandlerOpts{})

	accepts := []string{"",
		"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		"text/plain;version=0.0.4", "text/plain;version=1.0.0;escaping=allow-utf-8",
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited",
		"application/openmetrics-text;version=1.0.0", "*/*"}
	encodings := [][]string{{"gzip"}, nil, {"identity"}, {"gzip, identity"}, {"gzip;q=0"}, {"*"}, {"gzip", "br"}}
	fast := 0
	for _, accept := range accepts {
		for _, enc := range encodings {
			for _, path := range []string{"/probe?target=x", "/probe?target=x&name[]=a2abind_findings"} {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				if accept != "" {
					req.Header.Set("Accept", accept)
				}
				for _, e := range enc {
					req.Header.Add("Accept-Encoding", e)
				}
				got, want := httptest.NewRecorder(), httptest.NewRecorder()
				writeSeries(got, req, mfs)
				reference.ServeHTTP(want, req)
				if got.Code != want.Code || !maps.EqualFunc(got.Header(), want.Header(), slices.Equal[[]string]) {
					t.Errorf("Accept %q, Accept-Encoding %q, %s: %d %v, promhttp %d %v", accept, enc, path, got.Code, got.Header(), want.Code, want.Header())
				}
				g, w := decoded(t, got), decoded(t, want)
				if !bytes.Equal(g, w) || len(g) == 0 {
					t.Errorf("Accept %q, Accept-Encoding %q, %s: the bytes differ from promhttp's:\n%q\n%q", accept, enc, path, g, w)
				}
				if len(enc) == 1 && enc[0] == "gzip" && path == "/probe?target=x" {
					fast++
				}
			}
		}
	}
	if fast != len(accepts) {
		t.Fatalf("%d scrapes took the pooled writer, want %d", fast, len(accepts))
	}
}

// decoded is a recorded answer's body, gunzipped when it says it is gzip.
func decoded(t *testing.T, rec *httptest.ResponseRecorder) []byte {
	t.Helper()
	if rec.Header().Get("Content-Encoding") != "gzip" {
		return rec.Body.Bytes()
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return body
}
