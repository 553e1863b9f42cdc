package lab_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestLateGRPCRegistersAndRemovesTheService drives a real a2a-go gRPC client through
// the three states: no service (UNIMPLEMENTED unknown service), served, removed again.
func TestLateGRPCRegistersAndRemovesTheService(t *testing.T) {
	l, err := lab.StartLateGRPC()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ep := &a2a.AgentInterface{URL: l.Addr, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.ProtocolVersion("1.0")}
	send := func() (string, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		return labtest.SendText(ctx, ep, grpcInsecure)
	}
	unregistered := func(when string) {
		t.Helper()
		_, err := send()
		if err == nil || !errors.Is(err, a2a.ErrMethodNotFound) || !strings.Contains(err.Error(), "unknown service lf.a2a.v1.A2AService") {
			t.Fatalf("%s: SendMessage error = %v, want UNIMPLEMENTED unknown service lf.a2a.v1.A2AService", when, err)
		}
	}
	unregistered("before Register")
	l.Register()
	l.Register() // idempotent
	if got, err := send(); err != nil || got != "ping" {
		t.Fatalf("after Register: SendMessage = %q, %v; want the echo of ping", got, err)
	}
	l.Unregister()
	unregistered("after Unregister")
}
