// Package servertest starts a2abind's server for tests of other packages, as httptest
// starts an HTTP server: on loopback, with the lab's echo agent identity, shut down when
// the test ends.
package servertest

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/server"
)

// Start builds a server for exec with opts (HTTP on 127.0.0.1:0 and the lab's echo
// agent information unless opts say otherwise), starts it, fails tb if either fails,
// and shuts it down in tb's cleanup, failing tb if that fails.
func Start(tb testing.TB, exec a2asrv.AgentExecutor, opts ...server.Option) *server.Server {
	tb.Helper()
	base := []server.Option{server.WithHTTPAddr("127.0.0.1:0"),
		server.WithAgentInfo(lab.EchoName, lab.EchoDescription, lab.EchoVersion, lab.EchoSkill)}
	srv, err := server.New(exec, append(base, opts...)...)
	if err != nil {
		tb.Fatalf("server.New() error = %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			tb.Errorf("server.Shutdown() error = %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		tb.Fatalf("server.Start() error = %v", err)
	}
	return srv
}
