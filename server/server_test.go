package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
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
	srv, err := New(Echo{}, append([]Option{echoInfo}, opts...)...)
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
	return labtest.SendText(ctx, ep, opts...)
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
		if r.Outcome != wire.Served {
			t.Errorf("probe %s = %s (%s), want served", r.Interface, r.Outcome, r.Detail)
		}
	}
}

// TestA2AGoClientProfilesFromTheCard resolves the published card the way a2a-go does
// and lets its client choose: the default profile (JSON-RPC, HTTP+JSON), a gRPC-enabled
// client preferring gRPC, and a v0.3-only client on the union card.
func TestA2AGoClientProfilesFromTheCard(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithV03())
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	v1Card, err := agentcard.DefaultResolver.Resolve(ctx, srv.BaseURL())
	if err != nil {
		t.Fatalf("Resolve() error = %v", err)
	}
	compat := agentcard.NewResolver(nil)
	compat.CardParser = a2av0.NewAgentCardParser()
	unionCard, err := compat.Resolve(ctx, srv.BaseURL())
	if err != nil {
		t.Fatalf("Resolve(v0.3 parser) error = %v", err)
	}
	v03Only := append([]a2aclient.FactoryOption{a2aclient.WithDefaultsDisabled()}, compatClients...)
	base := srv.BaseURL()
	tests := []struct {
		name    string
		card    *a2a.AgentCard
		opts    []a2aclient.FactoryOption
		wantURL string
	}{
		{"default", v1Card, nil, base + PathJSONRPC},
		{"default, HTTP+JSON preferred", v1Card, []a2aclient.FactoryOption{a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}})}, base + PathREST},
		{"gRPC enabled and preferred", v1Card, []a2aclient.FactoryOption{grpcInsecure, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolGRPC}})}, srv.GRPCAddr()},
		{"v0.3 compat only, union card", unionCard, v03Only, base + PathJSONRPCV03},
		{"v0.3 compat only, HTTP+JSON preferred", unionCard, append(v03Only, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}})), base + PathRESTV03},
		{"v0.3 compat only, gRPC preferred", unionCard, append(v03Only, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolGRPC}})), srv.GRPCAddr()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var used string
			rec := a2aclient.WithCallInterceptors(recordURL{&used})
			c, err := a2aclient.NewFromCard(ctx, tt.card, append(tt.opts, rec)...)
			if err != nil {
				t.Fatalf("NewFromCard() error = %v", err)
			}
			defer c.Destroy()
			res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))})
			if err != nil {
				t.Fatalf("SendMessage() via %s error = %v", used, err)
			}
			if task, ok := res.(*a2a.Task); !ok || task.Status.State != a2a.TaskStateCompleted {
				t.Errorf("SendMessage() via %s = %#v, want a completed task", used, res)
			}
			if used != tt.wantURL {
				t.Errorf("client called %s, want %s", used, tt.wantURL)
			}
		})
	}
}

// recordURL notes the interface URL an a2a-go client calls.
type recordURL struct{ url *string }

func (r recordURL) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	*r.url = req.BaseURL
	return ctx, nil, nil
}

func (recordURL) After(context.Context, *a2aclient.Response) error { return nil }

// TestTLSAndPublicURL serves every binding over TLS (certificate from PEM files) with
// gRPC on its own port and on the HTTP port; the card advertises https URLs and the
// self-check and a2a-go clients pass over TLS.
func TestTLS(t *testing.T) {
	cert, pool, err := lab.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, WithTLS(certFile, keyFile), WithGRPCAddr("127.0.0.1:0"), WithGRPCOnHTTP())
	if !strings.HasPrefix(srv.BaseURL(), "https://") {
		t.Fatalf("BaseURL() = %s, want https", srv.BaseURL())
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	c, err := card.Fetch(ctx, srv.BaseURL(), card.WithHTTPClient(hc))
	if err != nil {
		t.Fatalf("card.Fetch() error = %v", err)
	}
	opts := []a2aclient.FactoryOption{
		a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc),
		a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, ""))),
	}
	for _, iface := range c.Interfaces {
		if got, err := sendEcho(ctx, iface, opts...); err != nil || got != "ping" {
			t.Errorf("SendMessage(%s) over TLS = %q, %v", iface, got, err)
		}
	}
	for _, r := range probe.Card(ctx, c, probe.WithConn(addr.Conn{RootCAs: pool})) {
		if r.Outcome != wire.Served {
			t.Errorf("probe %s = %s (%s), want served", r.Interface, r.Outcome, r.Detail)
		}
	}
}

// TestPublicURLs: behind a proxy the card advertises the public addresses while the
// self-check dials the local listeners.
func TestPublicURLs(t *testing.T) {
	srv := startServer(t, WithPublicURL("https://agent.example.com/team-a/"), WithGRPCAddr("127.0.0.1:0"),
		WithPublicGRPCAddr("grpc.example.com:443"), WithGRPCOnHTTP())
	var got []string
	for _, i := range srv.Card().Interfaces {
		got = append(got, i.String())
	}
	want := []string{
		"JSONRPC 1.0 at https://agent.example.com:443/team-a/a2a/jsonrpc",
		"GRPC 1.0 at grpc.example.com:443",
		"GRPC 1.0 at agent.example.com:443",
		"HTTP+JSON 1.0 at https://agent.example.com:443/team-a/a2a/rest",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("card interfaces mismatch (-want +got):\n%s", diff)
	}
	if srv.BaseURL() != "https://agent.example.com:443/team-a" || !srv.Ready() {
		t.Errorf("BaseURL() = %s, Ready() = %v", srv.BaseURL(), srv.Ready())
	}
	if code, _, body := get(t, srv.LocalBaseURL()+card.WellKnownPath); code != http.StatusOK || body != string(srv.CardJSON()) {
		t.Errorf("local card = %d", code)
	}
}

// TestStreamingThroughTheGate streams a message on every v1.0 binding through the gate.
func TestStreamingThroughTheGate(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for _, iface := range srv.Card().Interfaces {
		ep := &a2a.AgentInterface{URL: iface.URL, ProtocolBinding: iface.Binding, ProtocolVersion: a2a.ProtocolVersion(iface.ProtocolVersion)}
		c, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, grpcInsecure)
		if err != nil {
			t.Fatal(err)
		}
		var events int
		var last a2a.Event
		for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))}) {
			if err != nil {
				t.Errorf("stream on %s: %v", iface, err)
				break
			}
			events++
			last = ev
		}
		c.Destroy()
		up, ok := last.(*a2a.TaskStatusUpdateEvent)
		if events < 3 || !ok || up.Status.State != a2a.TaskStateCompleted {
			t.Errorf("stream on %s: %d events ending with %T, want >= 3 ending with completed", iface, events, last)
		}
	}
}

// TestShutdownDuringSelfCheck: Shutdown while Start still checks stops Start without a
// self-check verdict and without ever publishing the card.
func TestShutdownDuringSelfCheck(t *testing.T) {
	srv := newServer(t, WithGRPCAddr("127.0.0.1:0"), WithSelfCheckTimeout(30*time.Second), withHooks(hooks{skipGRPCRegister: true}))
	started := make(chan error, 1)
	go func() { started <- srv.Start(t.Context()) }()
	for {
		if code, _, _ := get(t, srv.LocalBaseURL()+PathHealthz); code == http.StatusOK {
			break
		}
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown() error = %v", err)
	}
	err := <-started
	if err == nil || errors.Is(err, ErrSelfCheck) {
		t.Errorf("Start() = %v, want a shutdown error, not a self-check verdict", err)
	}
	if srv.Ready() {
		t.Errorf("Ready() = true")
	}
}

// A derived card needs the agent's own name, description and version: no server
// publishes a made-up agent.
func TestNewWithoutAgentInfoIsRefused(t *testing.T) {
	for name, opts := range map[string][]Option{
		"no info":    nil,
		"empty name": {WithAgentInfo("", "d", "1")},
	} {
		t.Run(name, func(t *testing.T) {
			srv, err := New(Echo{}, opts...)
			if err == nil {
				_ = srv.Shutdown(context.Background())
				t.Fatal("New() without agent info = nil error, want a refusal")
			}
			if !strings.Contains(err.Error(), "WithAgentInfo") {
				t.Errorf("New() error = %q, want it to name WithAgentInfo", err)
			}
		})
	}
}
