package guard_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

func TestParseMapping(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want string // want "" means an error
	}{
		{"https://agent.example.com=http://127.0.0.1:8080", "https://agent.example.com:443=http://127.0.0.1:8080"},
		{"agent.example.com:443=127.0.0.1:9090", "agent.example.com:443=127.0.0.1:9090"},
		{"HTTP://Agent.Example.COM/=http://[::1]:80", "http://agent.example.com:80=http://[::1]:80"},
		{"agent.example.com:443=http://127.0.0.1:9090", ""}, // mixed forms
		{"https://agent.example.com/a2a=http://127.0.0.1:8080", ""},
		{"https://agent.example.com?x=1=http://127.0.0.1:8080", ""},
		{"https://user@agent.example.com=http://127.0.0.1:8080", ""},
		{"unix:///run/a.sock=http://127.0.0.1:8080", ""},
		{"agent.example.com=127.0.0.1:9090", ""}, // no port
		{"agent.example.com:0=127.0.0.1:9090", ""},
		{"agent.example.com:99999=127.0.0.1:9090", ""},
		{"https://agent.example.com", ""},
		{"=", ""},
		{"a b:1=127.0.0.1:1", ""},
	} {
		m, err := guard.ParseMapping(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseMapping(%q) = %s, want an error", tt.in, m)
		case tt.want == "" && !errors.Is(err, guard.ErrMapping):
			t.Errorf("ParseMapping(%q) error %v does not wrap ErrMapping", tt.in, err)
		case tt.want != "" && (err != nil || m.String() != tt.want):
			t.Errorf("ParseMapping(%q) = %s, %v; want %s", tt.in, m, err, tt.want)
		}
	}
}

// TestProbeViaProbesLocallyAndPublishesThePublicCard: the card names public addresses
// the guard cannot reach (here 127.0.0.2, where nothing listens). Without a mapping the
// card is withheld (refused); with --probe-via the probes go to the local sockets, the
// card is published, and it still names the public addresses.
func TestProbeViaProbesLocallyAndPublishesThePublicCard(t *testing.T) {
	t.Parallel()
	var publicHTTP, publicGRPC string
	a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithGRPC(lab.GRPCV1), lab.WithCard(func(a *lab.Agent) any {
		_, hp, _ := net.SplitHostPort(a.HTTPAddr)
		_, gp, _ := net.SplitHostPort(a.GRPCAddr)
		publicHTTP, publicGRPC = "http://127.0.0.2:"+hp, "127.0.0.2:"+gp
		return lab.V1Card("public", lab.Decl{URL: publicHTTP + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: publicGRPC, Binding: lab.GRPC, Version: card.V1})
	}))

	unmapped := startGuard(t, a.BaseURL)
	if s := unmapped.State(); s.Published || len(s.Findings) == 0 || !strings.Contains(s.Findings[0].Message, "refused") {
		t.Fatalf("without a mapping: published %v, findings %+v; want withheld (refused)", s.Published, s.Findings)
	}

	var via []guard.Mapping
	for _, m := range []string{publicHTTP + "=" + a.BaseURL, publicGRPC + "=" + a.GRPCAddr} {
		pm, err := guard.ParseMapping(m)
		if err != nil {
			t.Fatal(err)
		}
		via = append(via, pm)
	}
	g := startGuard(t, a.BaseURL, guard.WithProbeVia(via...))
	s := g.State()
	if !s.Published {
		t.Fatalf("with the mappings: withheld: %s %+v", s.Reason, s.Findings)
	}
	for _, r := range s.Results {
		if !strings.HasPrefix(r.Interface.URL, publicHTTP) && r.Interface.URL != publicGRPC {
			t.Errorf("result names %s, want the card's public address", r.Interface.URL)
		}
		if !strings.HasPrefix(r.Detail, "probed via 127.0.0.1:") && !strings.HasPrefix(r.Detail, "probed via "+a.BaseURL) {
			t.Errorf("result detail %q does not say where it was probed", r.Detail)
		}
	}
	if got := get(t, cardOf(g)); got.status != http.StatusOK || got.body != string(a.CardJSON) {
		t.Errorf("card = %d %s, want the upstream card unchanged (public addresses)", got.status, got.body)
	}
}
