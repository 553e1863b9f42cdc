package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// TestMain fails the package's tests when a goroutine is still running after they all
// passed: a client, connection, server or stream left open by the code under test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestShutdownLeavesNothing: once Shutdown returned, none of the server's goroutines is
// left: listeners, connections, the self-check, and the agent's executions, which a2a-go
// runs detached from their requests (stuck ones included, when the executor honours
// its context).
func TestShutdownLeavesNothing(t *testing.T) {
	t.Run("served and probed on every binding", func(t *testing.T) {
		before := goleak.IgnoreCurrent()
		srv, err := New(Echo{}, echoInfo, WithGRPCAddr("127.0.0.1:0"), WithGRPCOnHTTP(), WithV03())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		if err := srv.Start(ctx); err != nil {
			t.Fatalf("Start() error = %v", err)
		}
		results := probe.Card(ctx, srv.Card())
		if len(results) != 8 { // JSON-RPC, gRPC, gRPC on the HTTP port, HTTP+JSON; 1.0 and 0.3
			t.Errorf("Card() = %d results, want 8", len(results))
		}
		for _, r := range results {
			if r.Outcome != wire.Served {
				t.Errorf("%s: %s (%s), want served", r.Interface, r.Outcome, r.Detail)
			}
		}
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown() = %v", err)
		}
		goleak.VerifyNone(t, before)
	})

	t.Run("executions stuck at shutdown", func(t *testing.T) {
		before := goleak.IgnoreCurrent()
		exec := gatedExecutor{entered: make(chan struct{}, 4), release: make(chan struct{})} // never released
		srv, err := New(exec, echoInfo, WithGRPCAddr("127.0.0.1:0"), WithShutdownTimeout(200*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		if err := srv.Start(ctx); err != nil {
			t.Fatalf("Start() error = %v", err)
		}
		ifaces := srv.Card().Interfaces // JSON-RPC, gRPC, HTTP+JSON
		results := make(chan error, len(ifaces))
		for _, iface := range ifaces {
			go func() { _, err := sendEcho(ctx, iface, grpcInsecure); results <- err }()
		}
		for range ifaces {
			<-exec.entered
		}
		if err := srv.Shutdown(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown() = %v, want the HTTP drain's deadline", err)
		}
		for range ifaces {
			if err := <-results; err == nil {
				t.Errorf("a stuck call succeeded")
			}
		}
		goleak.VerifyNone(t, before)
	})

	t.Run("start refused by the self-check", func(t *testing.T) {
		before := goleak.IgnoreCurrent()
		srv, err := New(Echo{}, echoInfo, WithGRPCAddr("127.0.0.1:0"), WithSelfCheckTimeout(300*time.Millisecond),
			withHooks(hooks{skipGRPCRegister: true}))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(t.Context()); !errors.Is(err, ErrSelfCheck) {
			t.Errorf("Start() = %v, want ErrSelfCheck", err)
		}
		goleak.VerifyNone(t, before)
	})
}
