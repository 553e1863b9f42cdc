package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// ownServers are an agent's own HTTP and gRPC servers on loopback, stopped when the
// test ends.
type ownServers struct {
	lis, glis net.Listener
	gs        *grpc.Server
}

func startOwn(t *testing.T, h http.Handler) *ownServers {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	glis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o := &ownServers{lis: lis, glis: glis, gs: grpc.NewServer()}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(lis) }()
	t.Cleanup(func() { _ = hs.Close(); o.gs.Stop() })
	return o
}

func (o *ownServers) serveGRPC() { go func() { _ = o.gs.Serve(o.glis) }() }

func (o *ownServers) mounted() Option {
	return WithMounted(o.lis.Addr().String(), o.glis.Addr().String())
}

func TestMountedOnOwnServers(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/own", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("own\n")) })
	own := startOwn(t, mux)
	srv := newServer(t, own.mounted(), WithV03())
	if err := srv.Mount(mux); err != nil {
		t.Fatal(err)
	}
	srv.RegisterGRPC(own.gs)
	own.serveGRPC()
	if code, _, _ := get(t, srv.CardURL()); code != http.StatusServiceUnavailable {
		t.Errorf("card before Start = %d, want 503", code)
	}
	if err := srv.Start(t.Context()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	if code, _, body := get(t, srv.LocalBaseURL()+"/own"); code != http.StatusOK || body != "own\n" {
		t.Errorf("the agent's own route = %d %q", code, body)
	}
	results := probe.Card(t.Context(), srv.Card())
	if len(results) != 6 {
		t.Fatalf("probe found %d interfaces, want 6", len(results))
	}
	for _, r := range results {
		if r.Outcome != wire.Served {
			t.Errorf("%s %s: %s %s", r.Interface.Binding, r.Interface.ProtocolVersion, r.Outcome, r.Detail)
		}
	}
	// The version check travels with the services to the agent's gRPC server.
	ctx := metadata.AppendToOutgoingContext(t.Context(), "a2a-version", "0.3")
	_, err := a2apb.NewA2AServiceClient(grpcConn(t, srv.GRPCAddr())).GetTask(ctx, &a2apb.GetTaskRequest{Id: "x"})
	if st := status.Convert(err); st.Code() != codes.FailedPrecondition || errorInfoReason(st) != errVersion.Reason() {
		t.Errorf("v1.0 service asked for 0.3 = %v, want FAILED_PRECONDITION VERSION_NOT_SUPPORTED", err)
	}
	if err := srv.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := get(t, srv.CardURL()); code != http.StatusServiceUnavailable {
		t.Errorf("card after Shutdown = %d, want 503 (withdrawn; the agent's server still runs)", code)
	}
}

// Serving Handler at the root of one's own server is the other way to mount.
func TestMountedHandlerAtTheRoot(t *testing.T) {
	var h http.Handler = http.NotFoundHandler()
	own := startOwn(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	srv := newServer(t, WithMounted(own.lis.Addr().String(), ""))
	h = srv.Handler()
	if err := srv.Start(t.Context()); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	if code, _, _ := get(t, srv.CardURL()); code != http.StatusOK {
		t.Errorf("card = %d, want 200", code)
	}
}

// A binding the card declares but the agent did not mount keeps the card unpublished.
func TestMountedSelfCheckRefusesWhatIsNotMounted(t *testing.T) {
	for _, tt := range []struct {
		name, missing string
		mount         func(srv *Server, mux *http.ServeMux, gs *grpc.Server)
	}{
		{"gRPC services not registered", "GRPC", func(srv *Server, mux *http.ServeMux, _ *grpc.Server) { _ = srv.Mount(mux) }},
		{"HTTP parts not mounted", "JSONRPC", func(srv *Server, mux *http.ServeMux, gs *grpc.Server) {
			mux.Handle("/.well-known/", srv.Handler()) // the card only
			srv.RegisterGRPC(gs)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			own := startOwn(t, mux)
			srv := newServer(t, own.mounted(), WithSelfCheckTimeout(500*time.Millisecond))
			tt.mount(srv, mux, own.gs)
			own.serveGRPC()
			err := srv.Start(t.Context())
			var sce *SelfCheckError
			if !errors.As(err, &sce) || !strings.Contains(err.Error(), tt.missing) {
				t.Fatalf("Start() = %v, want a *SelfCheckError naming %s", err, tt.missing)
			}
			if code, _, _ := get(t, srv.CardURL()); code == http.StatusOK {
				t.Error("the card was published")
			}
		})
	}
}

func TestMountRefusesATakenPattern(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc(PathHealthz, func(http.ResponseWriter, *http.Request) {})
	own := startOwn(t, mux)
	srv := newServer(t, WithMounted(own.lis.Addr().String(), ""))
	if err := srv.Mount(mux); err == nil || !strings.Contains(err.Error(), PathHealthz) {
		t.Errorf("Mount() on a mux serving %s = %v, want an error naming it", PathHealthz, err)
	}
}

func TestMountedConfigErrors(t *testing.T) {
	for name, opts := range map[string][]Option{
		"with a gRPC listener": {WithMounted("127.0.0.1:1", ""), WithGRPCAddr("127.0.0.1:0")},
		"with gRPC on HTTP":    {WithMounted("127.0.0.1:1", ""), WithGRPCOnHTTP()},
		"a host name":          {WithMounted("localhost:8080", "")},
		"no port":              {WithMounted("127.0.0.1", "")},
	} {
		t.Run(name, func(t *testing.T) {
			srv, err := New(Echo{}, append([]Option{echoInfo}, opts...)...)
			if err == nil {
				_ = srv.Shutdown(context.Background())
				t.Fatal("New() = nil error")
			}
			if !strings.Contains(err.Error(), "WithMounted") {
				t.Errorf("New() = %v, want it to name WithMounted", err)
			}
		})
	}
}

// strictAuth refuses every call without a known bearer token.
type strictAuth struct {
	a2asrv.PassthroughCallInterceptor
}

func (strictAuth) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	ctx, _, _ = bearerAuth{}.Before(ctx, cc, req)
	if cc.User == nil || !cc.User.Authenticated {
		return ctx, nil, a2a.ErrUnauthenticated
	}
	return ctx, nil, nil
}

// An agent that refuses unauthenticated calls gives the self-check a credential; without
// one its interfaces answer auth_required and the card is not published.
func TestSelfCheckWithACredential(t *testing.T) {
	opts := []Option{WithGRPCAddr("127.0.0.1:0"), bearerScheme, WithSelfCheckTimeout(time.Second),
		WithHandlerOptions(a2asrv.WithCallInterceptors(strictAuth{}))}
	srv := newServer(t, opts...)
	err := srv.Start(t.Context())
	var sce *SelfCheckError
	if !errors.As(err, &sce) || len(sce.Results) == 0 || sce.Results[0].Outcome != wire.AuthRequired {
		t.Fatalf("Start() without a credential = %v, want a *SelfCheckError with auth_required", err)
	}
	srv = newServer(t, append(opts, WithSelfCheckHeader("Authorization", "Bearer token-of-self-check"))...)
	if err := srv.Start(t.Context()); err != nil {
		t.Fatalf("Start() with a credential = %v", err)
	}
}
