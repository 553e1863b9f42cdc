package card_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
)

var update = flag.Bool("update", false, "rewrite testdata/cards files generated from the SDKs")

// unionSourceCard is what an a2a-go v2.3.1 agent serving v1.0 and v0.3 declares; the
// compat producer turns it into the union JSON checked in as a2a-go-union.json.
func unionSourceCard() *a2a.AgentCard {
	return &a2a.AgentCard{
		Name:        "Union Agent",
		Description: "An a2a-go v2.3.1 agent serving v1.0 and v0.3 clients, card served by a2av0.NewStaticAgentCardProducer.",
		Version:     "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{
			a2a.NewAgentInterface("http://127.0.0.1:8080/a2a", a2a.TransportProtocolJSONRPC),
			a2a.NewAgentInterface("127.0.0.1:9090", a2a.TransportProtocolGRPC),
			{URL: "http://127.0.0.1:8080/a2a/v03", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
			{URL: "127.0.0.1:9090", ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2av0.Version},
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "Echoes the input.", Tags: []string{"echo"}}},
	}
}

// serveSDKCard serves h on loopback and returns what a client fetching the card gets.
func serveSDKCard(t *testing.T, h http.Handler) []byte {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	resp, err := srv.Client().Get(srv.URL + a2asrv.WellKnownAgentCardPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, card.DefaultMaxBytes))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET card: status %d, err %v, body %q", resp.StatusCode, err, body)
	}
	return body
}

// TestA2AGoUnionCardIsCurrent checks that testdata/cards/a2a-go-union.json is exactly what
// a2a-go's compat producer serves today (run with -update to regenerate it), and that
// card.Fetch reads it off the SDK's own handler as it reads the file.
func TestA2AGoUnionCardIsCurrent(t *testing.T) {
	h := a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(unionSourceCard()))
	served := serveSDKCard(t, h)
	path := filepath.Join("..", "testdata", "cards", "a2a-go-union.json")
	if *update {
		if err := os.WriteFile(path, append(bytes.TrimSpace(served), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(bytes.TrimSpace(want)), string(bytes.TrimSpace(served))); diff != "" {
		t.Fatalf("a2a-go union card changed (-file +served); rerun with -update:\n%s", diff)
	}

	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	fetched, err := card.Fetch(context.Background(), srv.URL)
	if err != nil {
		t.Fatalf("Fetch(%s) = %v", srv.URL, err)
	}
	fromFile, err := card.Parse(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromFile.Interfaces, fetched.Interfaces); diff != "" {
		t.Errorf("Fetch() interfaces differ from Parse(file) (-file +fetched):\n%s", diff)
	}
}

// TestA2AGoReadsCorpusLikeUs cross-checks the v1.0 reading of every healthy corpus card
// against a2a-go's own parser: each interface a2a-go sees, a2abind sees too, in order.
func TestA2AGoReadsCorpusLikeUs(t *testing.T) {
	for _, name := range []string{"a2a-js-v1.json", "a2a-go-union.json", "v1-healthy.json", "seed-v1.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", "cards", name))
			if err != nil {
				t.Fatal(err)
			}
			sdk, err := a2av0.NewAgentCardParser()(data)
			if err != nil {
				t.Fatalf("a2a-go parser: %v", err)
			}
			c, err := card.Parse(data)
			if err != nil {
				t.Fatalf("Parse() = %v", err)
			}
			var got, want []string
			for _, i := range sdk.SupportedInterfaces {
				want = append(want, i.URL+" "+string(i.ProtocolBinding)+" "+string(i.ProtocolVersion))
			}
			for _, i := range c.Interfaces {
				if i.Source.List != card.ListSupported {
					continue // the v0.3 half of a union card; a2a-go reads supportedInterfaces only
				}
				got = append(got, i.URL+" "+string(i.Binding)+" "+i.ProtocolVersion)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("interfaces (-a2a-go +a2abind):\n%s", diff)
			}
		})
	}
}
