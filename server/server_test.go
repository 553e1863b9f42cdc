package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// startServer builds and starts a server on loopback and stops it in t.Cleanup.
func startServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	srv := newServer(t, opts...)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	return srv
}

func newServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	srv, err := New(Echo{}, opts...)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return srv
}

var (
	grpcInsecure   = a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))
	grpcV0Insecure = a2agrpcv0.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))
	compatClients  = []a2aclient.FactoryOption{
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
		grpcV0Insecure,
	}
)

// sendEcho sends "ping" through a real a2a-go client bound to one interface and returns
// the echoed text.
func sendEcho(ctx context.Context, iface card.Interface, opts ...a2aclient.FactoryOption) (string, error) {
	ep := &a2a.AgentInterface{URL: iface.URL, ProtocolBinding: iface.Binding, ProtocolVersion: a2a.ProtocolVersion(iface.ProtocolVersion)}
	c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, opts...)
	if err != nil {
		return "", err
	}
	defer c.Destroy()
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))})
	if err != nil {
		return "", err
	}
	task, ok := res.(*a2a.Task)
	if !ok || len(task.Artifacts) == 0 || len(task.Artifacts[0].Parts) == 0 {
		return "", errors.New("no artifact in the result")
	}
	return task.Artifacts[0].Parts[0].Text(), nil
}

func TestEveryBindingAnswersA2AGoClients(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithGRPCOnHTTP(), WithV03())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c, err := card.Fetch(ctx, srv.BaseURL())
	if err != nil {
		t.Fatalf("card.Fetch() error = %v", err)
	}
	if got, want := len(c.Interfaces), 8; got != want {
		t.Fatalf("card interfaces = %d, want %d: %v", got, want, c.Interfaces)
	}
	for _, iface := range c.Interfaces {
		opts := []a2aclient.FactoryOption{grpcInsecure}
		if iface.ProtocolVersion == card.V03 {
			opts = compatClients
		}
		got, err := sendEcho(ctx, iface, opts...)
		if err != nil || got != "ping" {
			t.Errorf("SendMessage(%s) = %q, %v, want ping", iface, got, err)
		}
	}
	for _, r := range probe.Card(ctx, c) {
		if r.Outcome != probe.Served {
			t.Errorf("probe %s = %s (%s), want served", r.Interface, r.Outcome, r.Detail)
		}
	}
}
