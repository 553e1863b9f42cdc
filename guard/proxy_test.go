package guard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestProxyRefusesLoops: the guard never proxies to itself, at start or at request time.
func TestProxyRefusesLoops(t *testing.T) {
	t.Parallel()
	lis := listen(t)
	if _, err := guard.New("http://"+lis.Addr().String(), guard.WithListener(lis)); err == nil || !strings.Contains(err.Error(), "own listen address") {
		t.Fatalf("New(upstream = own address) = %v, want a refusal", err)
	}
	a := labtest.Start(t, lab.Healthy()...)
	g := startGuard(t, a.BaseURL)
	if r := get(t, g.URL()+lab.PathJSONRPC, "A2abind-Guard-Hop", "1"); r.status != http.StatusLoopDetected {
		t.Errorf("a request that already passed a guard = %d, want 508", r.status)
	}
}

// TestUpstreamDown: an upstream that does not answer withholds the card (not
// obtainable) and proxied requests get 502, naming neither address nor cause that a
// client could read as a network failure of its own.
func TestUpstreamDown(t *testing.T) {
	t.Parallel()
	addr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	g := startGuard(t, "http://"+addr)
	if s := g.State(); s.Published || !strings.Contains(s.Reason, "not obtainable") || !strings.Contains(s.Reason, addr) {
		t.Fatalf("state = published %v, reason %q; want withheld, not obtainable, naming the upstream", s.Published, s.Reason)
	}
	if c := get(t, cardOf(g)); c.status != http.StatusServiceUnavailable || strings.Contains(c.body, addr) || !strings.Contains(c.body, "not obtainable") {
		t.Errorf("card = %d %q, want 503 saying why without the upstream's address", c.status, c.body)
	}
	r := get(t, g.URL()+"/a2a/jsonrpc")
	if r.status != http.StatusBadGateway || strings.Contains(r.body, addr) || strings.Contains(r.body, "refused") {
		t.Errorf("proxied request = %d %q, want 502 without the upstream's address or error", r.status, r.body)
	}
}

// TestShutdownWithdrawsTheCardAndEndsStreams: Shutdown returns within its bound even
// with a stream that never ends, closing it, and the card is withdrawn.
func TestShutdownWithdrawsTheCardAndEndsStreams(t *testing.T) {
	t.Parallel()
	lis := listen(t)
	front := "http://" + lis.Addr().String()
	exec := gatedStream{release: make(chan struct{})} // never released
	a := labtest.Start(t, lab.WithExecutor(exec), lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithCard(func(*lab.Agent) any {
		return lab.V1Card("held", lab.Decl{URL: front + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1})
	}))
	t.Cleanup(func() { close(exec.release) }) // a2a-go runs the task on after its client went: end it before the agent closes
	g, err := guard.New(a.BaseURL, guard.WithListener(lis), guard.WithShutdownTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{{
		URL: front + lab.PathJSONRPC, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.ProtocolVersion(card.V1)}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Destroy() }()
	streaming := make(chan struct{})
	ended := make(chan error, 1)
	go func() {
		var last error
		for ev, err := range client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hold"))}) {
			if e, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && e.Status.State == a2a.TaskStateWorking {
				close(streaming)
			}
			last = err
		}
		ended <- last
	}()
	select {
	case <-streaming:
	case <-ctx.Done():
		t.Fatal("the stream never started")
	}
	shut := make(chan error, 1)
	go func() { shut <- g.Shutdown(context.Background()) }()
	select {
	case <-shut: // an error: the stream had to be cut at the bound
	case <-ctx.Done():
		t.Fatal("Shutdown did not return while a stream was open")
	}
	rec := httptest.NewRecorder() // the listener is closed; ask the handler itself
	g.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, card.WellKnownPath, nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "shutting down") {
		t.Errorf("card after Shutdown = %d %q, want 503 shutting down", rec.Code, rec.Body.String())
	}
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal("the client's stream was not ended by the guard's shutdown")
	}
}
