package server

import (
	"context"
	"testing"
	"time"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestLegacyA2AGoClient: a pre-1.0 client (a2a-go v0.3.15, which sends no A2A-Version)
// reads the union card the v0.3 way (url + preferredTransport) and is served; with gRPC
// preferred it reaches the v0.3 gRPC service.
func TestLegacyA2AGoClient(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithV03())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c, err := legacycard.DefaultResolver.Resolve(ctx, srv.BaseURL())
	if err != nil {
		t.Fatalf("legacy Resolve() error = %v", err)
	}
	if c.URL != srv.BaseURL()+PathJSONRPCV03 || c.PreferredTransport != legacy.TransportProtocolJSONRPC {
		t.Errorf("union card v0.3 primary = %s %s, want JSONRPC at %s", c.PreferredTransport, c.URL, srv.BaseURL()+PathJSONRPCV03)
	}
	grpcOpt := legacyclient.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))
	tests := []struct {
		name      string
		preferred []legacy.TransportProtocol
	}{
		{"card's preference (JSON-RPC at url)", nil},
		{"gRPC preferred", []legacy.TransportProtocol{legacy.TransportProtocolGRPC}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, err := legacyclient.NewFromCard(ctx, c, grpcOpt, legacyclient.WithConfig(legacyclient.Config{PreferredTransports: tt.preferred}))
			if err != nil {
				t.Fatalf("legacy NewFromCard() error = %v", err)
			}
			defer cl.Destroy()
			res, err := cl.SendMessage(ctx, &legacy.MessageSendParams{Message: legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: "ping"})})
			if err != nil {
				t.Fatalf("legacy SendMessage() error = %v", err)
			}
			task, ok := res.(*legacy.Task)
			if !ok || task.Status.State != legacy.TaskStateCompleted {
				t.Errorf("legacy SendMessage() = %#v, want a completed task", res)
			}
		})
	}
}
