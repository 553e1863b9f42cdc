package probe_test

import (
	"context"
	"crypto/x509"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a client, connection, server or stream left open by the code under test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestCardLeavesNothing: once probe.Card returned, none of its connections or
// goroutines is left, whatever the peers did (served, wrong binding, TLS, silent,
// garbage), while the peers are still running, so nothing is hidden by a server
// closing its end.
func TestCardLeavesNothing(t *testing.T) {
	seed := labtest.Start(t, lab.Seed()...)
	healthy := labtest.Start(t, lab.Healthy()...)
	secure := labtest.Start(t, append(lab.Healthy(), lab.WithTLS())...)
	silent := startListener(t, lab.Silent)
	garbage := startListener(t, lab.Garbage)
	cards := map[string]string{"seed": seed.BaseURL, "healthy": healthy.BaseURL}
	// The system roots load once per process, under a lock no context can cancel; on a
	// loaded machine a handshake waiting for that first load outlives the 500ms probe
	// below. Load them first so that only what the probe itself leaves is counted.
	if _, err := x509.SystemCertPool(); err != nil {
		t.Logf("x509.SystemCertPool() = %v", err)
	}
	before := goleak.IgnoreCurrent()
	for name, base := range cards {
		c, err := card.Fetch(t.Context(), base)
		if err != nil {
			t.Fatalf("%s: card.Fetch() = %v", name, err)
		}
		probe.Card(t.Context(), c, probe.WithTimeout(5*time.Second))
	}
	odd := &card.Card{Interfaces: []card.Interface{
		iface(secure.BaseURL+lab.PathJSONRPC, jsonrpc, card.V1), // untrusted certificate
		iface(secure.GRPCAddr, grpc, card.V1),
		iface("http://"+silent.Addr+"/a", jsonrpc, card.V1),
		iface(silent.Addr, grpc, card.V1),
		iface("http://"+garbage.Addr+"/a", jsonrpc, card.V1),
		iface(garbage.Addr, grpc, card.V03),
	}}
	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	results := probe.Card(ctx, odd)
	if len(results) != len(odd.Interfaces) {
		t.Fatalf("Card() = %d results, want %d", len(results), len(odd.Interfaces))
	}
	for _, r := range results {
		if r.Outcome == wire.Served {
			t.Errorf("%s: outcome served, want a failure (%s)", r.Interface, r.Detail)
		}
	}
	goleak.VerifyNone(t, before)
}
