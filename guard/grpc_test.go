package guard_test

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// TestGRPCOnTheHTTPPortPassesThrough: an agent serving gRPC on its HTTP port (h2c),
// behind the guard, its card naming the guard. The guard probes the card through its
// own proxy (JSON-RPC and HTTP+JSON over HTTP/1.1, gRPC over cleartext HTTP/2 with
// trailers), publishes it, and a real a2a-go gRPC client gets its answer through the
// guard.
func TestGRPCOnTheHTTPPortPassesThrough(t *testing.T) {
	t.Parallel()
	g := behindGuard(t)
	s := g.State()
	grpcSeen := false
	for _, r := range s.Results {
		grpcSeen = grpcSeen || (r.Interface.Binding == a2a.TransportProtocolGRPC && r.Outcome == wire.Served)
	}
	if !grpcSeen {
		t.Fatalf("no gRPC interface probed served through the guard: %+v", s.Results)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	got, err := labtest.SendText(ctx, &a2a.AgentInterface{URL: g.Addr(), ProtocolBinding: a2a.TransportProtocolGRPC,
		ProtocolVersion: a2a.ProtocolVersion(card.V1)}, a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil || got != "ping" {
		t.Errorf("gRPC SendMessage through the guard = %q, %v; want the echo", got, err)
	}
}
