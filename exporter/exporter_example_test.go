package exporter_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/lab"
)

// Serve the exporter and scrape the seed incident's agent, as Prometheus would.
func Example() {
	agent, err := lab.Start(lab.Seed()...)
	if err != nil {
		panic(err)
	}
	defer agent.Close()

	cfg, err := exporter.ParseConfig([]byte("modules: {default: {timeout: 5s}}"))
	if err != nil {
		panic(err)
	}
	x := exporter.New(cfg)
	defer x.Close()
	srv := httptest.NewServer(x)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/probe?target=" + url.QueryEscape(agent.BaseURL))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "probe_success") || strings.HasPrefix(line, `a2abind_findings_by_code{code="preferred-not-served"}`) {
			fmt.Println(line)
		}
	}
	// Output:
	// a2abind_findings_by_code{code="preferred-not-served"} 1
	// probe_success 0
}
