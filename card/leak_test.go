package card_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/a2abind/a2abind/card"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a client, connection, server or stream left open by the code under test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestFetchLeavesNothing: a fetch with the default client closes its connection (the
// server keeps connections alive, so only the client can be the one that closed it).
func TestFetchLeavesNothing(t *testing.T) {
	seed := readCard(t, "seed-v03.json")
	srv := cardServer(t, serveBytes(seed, "application/json"))
	before := goleak.IgnoreCurrent()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := card.Fetch(ctx, srv.URL); err != nil {
		t.Fatalf("Fetch() = %v", err)
	}
	goleak.VerifyNone(t, before)

	// With the caller's client the connection stays for reuse, and is the caller's to close.
	tr := &http.Transport{}
	if _, err := card.Fetch(ctx, srv.URL, card.WithHTTPClient(&http.Client{Transport: tr})); err != nil {
		t.Fatalf("Fetch(WithHTTPClient) = %v", err)
	}
	tr.CloseIdleConnections()
	goleak.VerifyNone(t, before)
}
