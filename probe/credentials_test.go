package probe_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// scopeCard is a card fetched from origin a whose interfaces are on a (served), on the
// second origin b (served too, through a proxy), at 0.0.0.0 on the port of a counting
// server (Linux connects 0.0.0.0 to loopback), and at metadata addresses.
type scopeCard struct {
	c        *card.Card
	a, b     *labtest.Origin
	wildcard *labtest.Origin
}

func newScopeCard(t *testing.T) scopeCard {
	t.Helper()
	agent := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC))
	var s scopeCard
	s.b = labtest.StartOrigin(t, "127.0.0.2", labtest.Proxy(t, agent.BaseURL))
	s.wildcard = labtest.StartOrigin(t, "127.0.0.1", labtest.Proxy(t, agent.BaseURL))
	_, wport, _ := strings.Cut(strings.TrimPrefix(s.wildcard.URL, "http://"), ":")
	proxy := labtest.Proxy(t, agent.BaseURL)
	s.a = labtest.StartOrigin(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != card.WellKnownPath {
			proxy.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(lab.V1Card("scope",
			lab.Decl{URL: s.a.URL + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: s.b.URL + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: "http://0.0.0.0:" + wport + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: "http://169.254.169.254/latest/meta-data/", Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: "metadata.google.internal:80", Binding: lab.GRPC, Version: card.V1},
			lab.Decl{URL: "unix:///var/run/agent.sock", Binding: lab.GRPC, Version: card.V1},
		))
	}))
	c, err := card.Load(t.Context(), s.a.URL)
	if err != nil {
		t.Fatal(err)
	}
	s.c = c
	return s
}

// credentials are the options of a probe sending the credentials over conn.
func credentials(conn addr.Conn) []probe.Option {
	conn.Header = http.Header{"Authorization": {"Bearer T"}, "X-Api-Key": {"K"}}
	return []probe.Option{probe.WithConn(conn), probe.WithTimeout(5 * time.Second)}
}

// Hole 1(d): probe sends -H headers only to the card's origin, and does not dial 0.0.0.0,
// 169.254.169.254, metadata names or unix sockets a card names: those are blocked, and
// the counting server behind 0.0.0.0 gets nothing.
func TestProbeScopesCredentialsAndRefusesAddresses(t *testing.T) {
	s := newScopeCard(t)
	results := probe.Card(t.Context(), s.c, credentials(addr.Conn{})...)
	outcomes := map[string]wire.Outcome{}
	for _, r := range results {
		outcomes[r.Interface.URL] = r.Outcome
		if r.Outcome == wire.Blocked && !strings.Contains(r.Detail, "not probed") {
			t.Errorf("%s: blocked without saying so: %q", r.Interface.URL, r.Detail)
		}
	}
	for _, r := range results[2:] {
		if r.Outcome != wire.Blocked {
			t.Errorf("%s: outcome %s (%s), want blocked", r.Interface.URL, r.Outcome, r.Detail)
		}
	}
	if results[0].Outcome != wire.Served || results[1].Outcome != wire.Served {
		t.Fatalf("outcomes %v: the interfaces on both origins must be served (the probe must reach them)", outcomes)
	}
	if n := s.a.Carrying("Authorization"); n == 0 {
		t.Errorf("the card's origin %s never got the credentials", s.a.URL)
	}
	for _, h := range []string{"Authorization", "X-Api-Key"} {
		if n := s.b.Carrying(h); n != 0 {
			t.Errorf("the other origin %s got %s on %d of %d requests, want 0", s.b.URL, h, n, len(s.b.Requests()))
		}
	}
	if !strings.Contains(results[1].Detail, "credentials withheld") {
		t.Errorf("detail at the other origin does not say credentials were withheld: %q", results[1].Detail)
	}
	if n := len(s.wildcard.Requests()); n != 0 {
		t.Errorf("%d requests reached the server behind 0.0.0.0, want 0", n)
	}
}

// The controls: the same card with the other origin allowed (--credential-host) sends the
// credentials there, and with 0.0.0.0 allowed (--allow-address) the probe reaches it.
// Without them the test above could not tell a withheld header from a lost one.
func TestProbeScopeControls(t *testing.T) {
	s := newScopeCard(t)
	allow, err := addr.NewDialPolicy("0.0.0.0")
	if err != nil {
		t.Fatal(err)
	}
	results := probe.Card(t.Context(), s.c, credentials(addr.Conn{CredentialHosts: []string{"127.0.0.2"}, Dial: allow})...)
	if n := s.b.Carrying("X-Api-Key"); n == 0 {
		t.Errorf("with --credential-host 127.0.0.2 the other origin got no credentials")
	}
	if results[2].Outcome != wire.Served || len(s.wildcard.Requests()) == 0 {
		t.Errorf("with 0.0.0.0 allowed: %s (%s), %d requests; want served", results[2].Outcome, results[2].Detail, len(s.wildcard.Requests()))
	}
	if results[3].Outcome != wire.Blocked {
		t.Errorf("169.254.169.254 is %s with only 0.0.0.0 allowed, want blocked", results[3].Outcome)
	}
}

// An interface declared https:// at a plaintext server: the probe's TLS attempt fails,
// and its plaintext retry (to say what is really there) goes out without the headers:
// credentials for an https origin never travel in cleartext.
func TestProbePlaintextRetryWithoutCredentials(t *testing.T) {
	agent := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC))
	plain := labtest.StartOrigin(t, "127.0.0.1", labtest.Proxy(t, agent.BaseURL))
	declared := "https://" + strings.TrimPrefix(plain.URL, "http://") + lab.PathJSONRPC
	iface := card.Interface{URL: declared, Binding: lab.JSONRPC, ProtocolVersion: card.V1, Source: card.Supported(0)}
	r := probe.Interface(t.Context(), iface, credentials(addr.Conn{})...)
	if r.Outcome != wire.TLSMismatch || len(plain.Requests()) == 0 {
		t.Fatalf("outcome %s (%s), %d plaintext requests; want tls_mismatch found by a plaintext retry", r.Outcome, r.Detail, len(plain.Requests()))
	}
	for _, h := range []string{"Authorization", "X-Api-Key"} {
		if n := plain.Carrying(h); n != 0 {
			t.Errorf("%s went out in plaintext on %d requests, want 0", h, n)
		}
	}
}
