package exporter_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// BenchmarkScrape is one /probe scrape of the healthy three-interface lab agent over a
// keep-alive client, as Prometheus scrapes (gzip asked), on a warm exporter: the
// in-process view of `fleetbench scrape`, for CPU profiles and allocation counts.
func BenchmarkScrape(b *testing.B) {
	a := labtest.Start(b, lab.Healthy()...)
	x := exporter.New(nil)
	srv := httptest.NewServer(x)
	defer func() {
		srv.Close()
		_ = x.Close()
	}()
	client := srv.Client()
	url := srv.URL + probePath(a.BaseURL)
	get := func() {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	get() // the capability calls and connections are made once, as on a running exporter
	b.ReportAllocs()
	for b.Loop() {
		get()
	}
}
