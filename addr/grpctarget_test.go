package addr_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	gogrpc "google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
)

// TestGoGRPCTargetAgreesWithGRPCGo: addr.GoGRPCTarget's verdict on a target is what
// grpc-go itself does with it. A real gRPC server listens on loopback; each target
// names it in one spelling, and a health check through grpc.NewClient either reaches it
// (accepted) or fails before any connection (rejected). Scheme case does not matter to
// grpc-go ("DNS:///" is "dns:///"), and it must not matter to the rule either.
func TestGoGRPCTargetAgreesWithGRPCGo(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := gogrpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	hp := lis.Addr().String()

	for _, tt := range []struct {
		target string
		accept bool
	}{
		{hp, true},
		{"dns:///" + hp, true},
		{"DNS:///" + hp, true},
		{"Dns:///" + hp, true},
		{"passthrough:///" + hp, true},
		{"PASSTHROUGH:///" + hp, true},
		{"localhost:" + strings.TrimPrefix(hp, "127.0.0.1:"), true},
		{"grpc://" + hp, false},
		{"GRPC://" + hp, false},
		{"grpcs://" + hp, false},
		{"http://" + hp, false},
		{"https://" + hp, false},
		{"HTTPS://" + hp + "/a2a", false},
		{"dns:///", false},
		{"grpc://127.0.0.1", false}, // host "grpc", port "//127.0.0.1"
		{"http://localhost", false},
		{" " + hp, false}, // host " 127.0.0.1"
		{hp + " ", false}, // port "N "
	} {
		got := addr.GoGRPCTarget(tt.target)
		if (got == nil) != tt.accept {
			t.Errorf("GoGRPCTarget(%q) = %v, want accepted %v", tt.target, got, tt.accept)
		}
		if real := dialsWithGRPCGo(t, tt.target); real != (got == nil) {
			t.Errorf("%q: grpc-go reaches the server: %v; GoGRPCTarget says accepted: %v (%v)", tt.target, real, got == nil, got)
		}
	}
}

// dialsWithGRPCGo reports whether a health check through grpc.NewClient(target) reaches
// the server.
func dialsWithGRPCGo(t *testing.T, target string) bool {
	t.Helper()
	cc, err := gogrpc.NewClient(target, gogrpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return false
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
	return err == nil
}

// FuzzGoGRPCTarget: any target gets a verdict without a panic, and the verdict agrees
// with the address model where the two meet: a bare host:port (and its dns:/// and
// passthrough:/// forms) is accepted, an http, https, grpc or grpcs URL rejected.
func FuzzGoGRPCTarget(f *testing.F) {
	for _, s := range []string{"agent:443", "DNS:///agent:443", "passthrough:///[::1]:1", "grpc://agent",
		"HTTPS://agent:443/x", "unix:///run/a.sock", "dns:443", "dns://8.8.8.8/agent:443", ":443", "[::1]:", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = addr.GoGRPCTarget(s)
		a, perr := addr.ParseAddress(s, a2a.TransportProtocolGRPC)
		err := addr.GoGRPCTarget(strings.TrimSpace(s)) // the address model trims; grpc-go does not
		if perr != nil || a.Local() {
			return
		}
		switch a.Scheme {
		case "http", "https", "grpc", "grpcs":
			if err == nil {
				t.Fatalf("GoGRPCTarget(%q) accepts a %s:// URL", s, a.Scheme)
			}
		case "dns", "passthrough":
			if err != nil {
				t.Fatalf("GoGRPCTarget(%q) = %v, want accepted", s, err)
			}
		case "":
			if err != nil && !strings.Contains(a.Host, "%") {
				t.Fatalf("GoGRPCTarget(%q) = %v for the bare host:port %s", s, err, a.HostPort())
			}
		}
	})
}
