package probe_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	grpcgo "google.golang.org/grpc"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// TestCapabilityCallsBounded: a peer answering SubscribeToTask (and every other call)
// with a stream that never ends, a stream of endless comments, one endless event, or
// an endless body costs a capability call at most the WithTimeout budget and a 64 KiB
// read; a gRPC server streaming messages without end is read for one message.
func TestCapabilityCallsBounded(t *testing.T) {
	const (
		budget = 300 * time.Millisecond
		margin = 3 * time.Second // scheduling on a loaded machine, never the peer's pace
	)
	c := &card.Card{}
	for _, k := range []lab.Hostile{lab.EndlessEvents, lab.EndlessAfterEvent, lab.EndlessKeepAlive, lab.GiantEvent, lab.EndlessBody} {
		p, err := lab.StartHostile(k)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		c.Interfaces = append(c.Interfaces, iface(p.URL+"/a2a", jsonrpc, card.V1), iface(p.URL+"/a2a", httpjson, card.V1))
	}
	c.Interfaces = append(c.Interfaces, iface(endlessGRPC(t), grpc, card.V1))
	for i := range c.Interfaces {
		c.Interfaces[i].Source = card.Supported(i)
	}
	var ch probe.CardCheck
	start := time.Now()
	alloc := allocated(func() { ch = probe.Check(t.Context(), c, probe.WithTimeout(budget)) })
	elapsed := time.Since(start)
	t.Logf("allocated %d MiB in %s", alloc>>20, elapsed)
	if elapsed > 2*budget+margin { // the lookups, then at most one more round of calls
		t.Errorf("Check returned after %s", elapsed)
	}
	if alloc > 64<<20 {
		t.Errorf("Check allocated %d MiB, want under 64 MiB", alloc>>20)
	}
	if len(ch.Capabilities) != 3 {
		t.Fatalf("%d capabilities", len(ch.Capabilities))
	}
	for _, cr := range ch.Capabilities {
		for _, call := range cr.Calls {
			if call.Latency > budget+margin {
				t.Errorf("%s on %s took %s", cr.Name, call.Interface, call.Latency)
			}
		}
	}
}

// endlessGRPC is a gRPC server that answers every call on every service with messages
// without end (a SubscribeToTask stream that never stops), until the client goes.
func endlessGRPC(t *testing.T) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	msg := &a2apb.StreamResponse{Payload: &a2apb.StreamResponse_StatusUpdate{StatusUpdate: &a2apb.TaskStatusUpdateEvent{
		TaskId: "t", ContextId: strings.Repeat("c", 1000)}}}
	srv := grpcgo.NewServer(grpcgo.UnknownServiceHandler(func(_ any, ss grpcgo.ServerStream) error {
		for ss.Context().Err() == nil {
			if err := ss.SendMsg(msg); err != nil {
				return err
			}
		}
		return nil
	}))
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// TestCapabilityCallsPerCardBounded: a card of 10,000 interfaces on one healthy agent
// costs the lookups of the interface bound (addr.DefaultMaxInterfaces) and one call
// per capability per binding: 3 bindings, 9 calls, whatever the card declares.
func TestCapabilityCallsPerCardBounded(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	c := &card.Card{}
	for i := range 10000 {
		decl := []card.Interface{
			{URL: a.URL(lab.PathJSONRPC), Binding: jsonrpc, ProtocolVersion: card.V1},
			{URL: a.GRPCAddr, Binding: grpc, ProtocolVersion: card.V1},
			{URL: a.URL(lab.PathREST), Binding: httpjson, ProtocolVersion: card.V1},
		}[i%3]
		decl.URL += fmt.Sprintf("?n=%d", i)
		if decl.Binding == grpc {
			decl.URL = a.GRPCAddr
			decl.Tenant = fmt.Sprint(i)
		}
		decl.Source = card.Supported(i)
		c.Interfaces = append(c.Interfaces, decl)
	}
	e := probe.NewEngine()
	defer e.Close()
	ch := e.Check(context.Background(), c, probe.WithTimeout(5*time.Second))
	if len(ch.Results) != addr.DefaultMaxInterfaces {
		t.Fatalf("%d results, want %d", len(ch.Results), addr.DefaultMaxInterfaces)
	}
	calls := 0
	for _, cr := range ch.Capabilities {
		calls += len(cr.Calls)
	}
	if calls != 9 {
		t.Errorf("%d capability calls kept, want 9", calls)
	}
	lookups := e.Stats().Requests
	t.Logf("%d requests for %d results and %d calls", lookups, len(ch.Results), calls)
	// Every lookup of a served interface is one request (gRPC answers in plaintext at
	// once); each capability call one more (HTTP+JSON: one route for 1.0).
	if max := int64(addr.DefaultMaxInterfaces + 9); lookups > max {
		t.Errorf("%d requests, want at most %d", lookups, max)
	}
}
