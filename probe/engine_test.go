package probe_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	grpcgo "google.golang.org/grpc"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// healthyBehindProxies starts the healthy agent with counting proxies in front of its
// HTTP and gRPC listeners and returns the card pointing at the proxies.
func healthyBehindProxies(t *testing.T) (*card.Card, map[string]*lab.Delay) {
	t.Helper()
	a := labtest.Start(t, lab.Healthy()...)
	c, err := card.Parse(a.CardJSON)
	if err != nil {
		t.Fatal(err)
	}
	return c, labtest.Behind(t, c, 0, a.HTTPAddr, a.GRPCAddr)
}

func accepted(proxies map[string]*lab.Delay) (n int64) {
	for _, d := range proxies {
		n += d.Accepted()
	}
	return n
}

func allServed(t *testing.T, results []probe.Result) {
	t.Helper()
	if len(results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range results {
		if r.Outcome != wire.Served {
			t.Fatalf("%s: %s (%s)", r.Interface, r.Outcome, r.Detail)
		}
	}
}

// TestEngine_ReusesConnections: on a warm Engine, repeated probes of the healthy agent
// reuse their connections (counted by the proxies, server side): eleven rounds open at
// most one connection per request that can be in flight at once (one per interface),
// where probe.Card opens new ones on every call.
func TestEngine_ReusesConnections(t *testing.T) {
	t.Parallel()
	c, proxies := healthyBehindProxies(t)
	e := probe.NewEngine()
	defer e.Close()
	const rounds = 11
	for range rounds {
		allServed(t, e.Card(t.Context(), c))
	}
	opened := accepted(proxies)
	if opened == 0 || opened > int64(len(c.Interfaces)) {
		t.Errorf("%d rounds on one engine opened %d connections, want 1 to %d", rounds, opened, len(c.Interfaces))
	}
	if s := e.Stats(); s.Dials != opened || s.Requests != rounds*int64(len(c.Interfaces)) {
		t.Errorf("engine counted %d dials and %d requests; the proxies %d connections, for %d rounds of %d interfaces",
			s.Dials, s.Requests, opened, rounds, len(c.Interfaces))
	}

	allServed(t, probe.Card(t.Context(), c))
	if got := accepted(proxies) - opened; got < 2 {
		t.Errorf("probe.Card on a fresh engine opened %d connections, want one per origin at least", got)
	}
}

// TestEngine_ClosesIdleConnections: once idle for the idle timeout, the Engine's HTTP
// connections and gRPC channels are closed without Close being called.
func TestEngine_ClosesIdleConnections(t *testing.T) {
	t.Parallel()
	c, proxies := healthyBehindProxies(t)
	e := probe.NewEngine(probe.WithIdleTimeout(50 * time.Millisecond))
	defer e.Close()
	allServed(t, e.Card(t.Context(), c))
	deadline := time.Now().Add(20 * time.Second)
	for {
		open := int64(0)
		for _, d := range proxies {
			open += d.Open()
		}
		if open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still open 20 s after the probe, idle timeout 50 ms", open)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// concurrencyServer answers every JSON-RPC POST with TaskNotFound after holding it a
// moment, and records the most requests it had at once (shared across servers by
// passing the same counters).
type concurrencyServer struct {
	cur, peak *atomic.Int64
	limit     int64 // a request sees a breach of the cap without waiting its turn
}

func (s concurrencyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.cur.Add(1)
	defer s.cur.Add(-1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	if n <= s.limit {
		// Hold the request so that others pile up if the cap does not hold them back.
		select {
		case <-time.After(30 * time.Millisecond):
		case <-r.Context().Done():
		}
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found"}}`)
}

// TestEngine_CapsRequestsInFlight: the per-host cap bounds the requests one server sees
// at once, and the global cap the requests all servers see together, though the card
// has more interfaces than either cap.
func TestEngine_CapsRequestsInFlight(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		servers   int
		opts      []probe.EngineOption
		wantAtMax int64
	}{
		{"per host", 1, []probe.EngineOption{probe.WithMaxPerHost(2)}, 2},
		{"global", 3, []probe.EngineOption{probe.WithMaxInFlight(2), probe.WithMaxPerHost(8)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cur, peak atomic.Int64
			c := &card.Card{}
			for range tc.servers {
				srv := httptest.NewServer(concurrencyServer{cur: &cur, peak: &peak, limit: tc.wantAtMax})
				t.Cleanup(srv.Close)
				for i := range 8 {
					c.Interfaces = append(c.Interfaces, iface(fmt.Sprintf("%s/a%d", srv.URL, i), jsonrpc, card.V1))
				}
			}
			e := probe.NewEngine(tc.opts...)
			defer e.Close()
			allServed(t, e.Card(t.Context(), c))
			if got := peak.Load(); got > tc.wantAtMax || got == 0 {
				t.Errorf("servers saw %d requests at once, want at most %d", got, tc.wantAtMax)
			}
		})
	}
}

// TestEngine_FailedGRPCChannelIsNotReused: a gRPC address that refused the first probe
// and serves by the second is seen served: the Engine does not keep a failed channel
// (whose backoff state would answer for the new server).
func TestEngine_FailedGRPCChannelIsNotReused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	e := probe.NewEngine()
	defer e.Close()
	i := iface(addr, grpc, card.V1)
	if r := e.Interface(t.Context(), i); r.Outcome != wire.Refused {
		t.Fatalf("nothing listening: %s (%s), want refused", r.Outcome, r.Detail)
	}
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", addr, err)
	}
	srv := grpcgo.NewServer()
	a2agrpc.NewHandler(a2asrv.NewHandler(lab.Echo{})).RegisterWith(srv)
	go func() { _ = srv.Serve(l) }()
	defer srv.Stop()
	if r := e.Interface(t.Context(), i); r.Outcome != wire.Served {
		t.Fatalf("after the server started: %s (%s), want served", r.Outcome, r.Detail)
	}
}

// TestEngine_DialControl: a dial control refusing an address keeps the probe off it
// (the server sees no connection) and the result says why.
func TestEngine_DialControl(t *testing.T) {
	t.Parallel()
	c, proxies := healthyBehindProxies(t)
	errDenied := errors.New("address denied by the test's policy")
	e := probe.NewEngine(probe.WithDialControl(func(string, string, syscall.RawConn) error { return errDenied }))
	defer e.Close()
	for _, r := range e.Card(t.Context(), c, probe.WithTimeout(5*time.Second)) {
		if r.Outcome == wire.Served {
			t.Errorf("%s: served through a refused dial", r.Interface)
		}
	}
	if n := accepted(proxies); n != 0 {
		t.Errorf("the proxies accepted %d connections through a dial control that refuses all", n)
	}
}

// TestEngine_ClosedEngine: probing on a closed Engine is an outcome, not a panic.
func TestEngine_ClosedEngine(t *testing.T) {
	t.Parallel()
	c, _ := healthyBehindProxies(t)
	e := probe.NewEngine()
	_ = e.Close()
	for _, r := range e.Card(t.Context(), c) {
		if r.Outcome == wire.Served {
			t.Errorf("%s: served by a closed engine", r.Interface)
		}
	}
}

// blockingCard serves a healthy-looking card only once release is closed.
func blockingCard(t *testing.T, cardJSON []byte, release <-chan struct{}) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(cardJSON)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestEngine_Targets: every target gets exactly one result, with the line as given;
// a card that cannot be obtained is an error wrapping card.ErrUnavailable; results come
// out as they finish (a fast target's while a slow one still waits for its card).
func TestEngine_Targets(t *testing.T) {
	t.Parallel()
	healthy := labtest.Start(t, lab.Healthy()...)
	seed := labtest.Start(t, lab.Seed()...)
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	slow := blockingCard(t, healthy.CardJSON, release)
	targets := []string{slow, healthy.BaseURL, seed.BaseURL, "http://" + closed, healthy.BaseURL + card.WellKnownPath}
	e := probe.NewEngine()
	defer e.Close()
	got := map[string]probe.TargetResult{}
	for r := range e.Targets(t.Context(), targets, probe.WithConcurrency(2), probe.WithTimeout(5*time.Second)) {
		if _, dup := got[r.Target]; dup {
			t.Errorf("two results for %s", r.Target)
		}
		got[r.Target] = r
		if r.Target != slow && len(got) == len(targets)-1 {
			close(release) // every other target is out while the slow one still waits
		}
	}
	if len(got) != len(targets) {
		t.Fatalf("%d results for %d targets", len(got), len(targets))
	}
	for _, tgt := range []string{slow, healthy.BaseURL, healthy.BaseURL + card.WellKnownPath} {
		if r := got[tgt]; r.Err != nil || !probe.Diagnose(r.Card, r.Results).OK() {
			t.Errorf("%s: err %v, want a healthy report", tgt, r.Err)
		}
	}
	if r := got[seed.BaseURL]; r.Err != nil || probe.Diagnose(r.Card, r.Results).OK() {
		t.Errorf("seed: err %v, want a failing report", r.Err)
	}
	if r := got["http://"+closed]; !errors.Is(r.Err, card.ErrUnavailable) || r.Card != nil {
		t.Errorf("closed address: err %v, want card.ErrUnavailable", r.Err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	n := 0
	for r := range e.Targets(ctx, targets) {
		n++
		if r.Err == nil || r.Card != nil {
			t.Errorf("%s after cancel: card %v, err %v; want not probed", r.Target, r.Card != nil, r.Err)
		}
	}
	if n != len(targets) {
		t.Errorf("cancelled run: %d results for %d targets", n, len(targets))
	}
}

// TestEngine_ColdRoundOneConnectionPerAddress (issue 23 item 6): a fleet round that
// visits each target once opens one connection per address an agent serves on and no
// more: the card fetch's connection carries the card's HTTP interfaces of that origin
// and their capability calls in turn, and gRPC has its channel. On the next round the
// origins are known and their interfaces are probed in parallel, with the capability
// calls of each binding in a lane of their own: at most three more connections per
// origin (the second HTTP interface's lane and the two capability lanes). A round
// after that reuses them.
func TestEngine_ColdRoundOneConnectionPerAddress(t *testing.T) {
	t.Parallel()
	const n = 12
	var targets []string
	for range n {
		targets = append(targets, labtest.Start(t, lab.Healthy()...).BaseURL)
	}
	e := probe.NewEngine()
	defer e.Close()
	round := func() {
		for r := range e.Targets(t.Context(), targets, probe.WithConcurrency(4), probe.WithTimeout(10*time.Second)) {
			if r.Err != nil {
				t.Fatalf("%s: %v", r.Target, r.Err)
			}
			allServed(t, r.Results)
		}
	}
	round()
	if got := e.Stats().Dials; got != 2*n {
		t.Errorf("cold round over %d agents (an HTTP and a gRPC address each) opened %d connections, want %d", n, got, 2*n)
	}
	round()
	warm := e.Stats().Dials
	if got := warm - 2*n; got > 3*n {
		t.Errorf("warm round opened %d more connections, want at most three per HTTP origin (%d)", got, 3*n)
	}
	round()
	// net/http may dial while a connection it could reuse is on its way back to the
	// pool; a stream cut or a connection closed after each call would be one per origin
	// and binding, at least 2n.
	if got := e.Stats().Dials - warm; got > n {
		t.Errorf("steady round opened %d connections, want at most %d", got, n)
	}
}
