package server

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/a2abind/a2abind/card"
)

// bareAgent mounts the same a2a-go handlers as the guarded server, with nothing around
// them: no gate, no card check, no self-check. It is the baseline of the benchmarks.
type bareAgent struct {
	httpSrv *http.Server
	grpcSrv *grpc.Server
	ifaces  []card.Interface
}

func startBare(b *testing.B) *bareAgent {
	b.Helper()
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	h := a2asrv.NewHandler(Echo{})
	mux := http.NewServeMux()
	mux.Handle(PathJSONRPC, a2asrv.NewJSONRPCHandler(h))
	mux.Handle(PathREST+"/", http.StripPrefix(PathREST, a2asrv.NewRESTHandler(h)))
	a := &bareAgent{httpSrv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, grpcSrv: grpc.NewServer()}
	a2agrpc.NewHandler(h).RegisterWith(a.grpcSrv)
	go func() { _ = a.httpSrv.Serve(hl) }()
	go func() { _ = a.grpcSrv.Serve(gl) }()
	base := "http://" + hl.Addr().String()
	a.ifaces = []card.Interface{
		{URL: base + PathJSONRPC, Binding: a2a.TransportProtocolJSONRPC, ProtocolVersion: card.V1},
		{URL: gl.Addr().String(), Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1},
		{URL: base + PathREST, Binding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: card.V1},
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.httpSrv.Shutdown(ctx)
		a.grpcSrv.Stop()
	})
	return a
}

// sender is an a2a-go client bound to one interface.
type sender struct {
	c   *a2aclient.Client
	req *a2a.SendMessageRequest
}

func newSender(b *testing.B, iface card.Interface) *sender {
	b.Helper()
	ep := &a2a.AgentInterface{URL: iface.URL, ProtocolBinding: iface.Binding, ProtocolVersion: a2a.ProtocolVersion(iface.ProtocolVersion)}
	c, err := a2aclient.NewFromEndpoints(context.Background(), []*a2a.AgentInterface{ep}, grpcInsecure)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Destroy() })
	s := &sender{c: c, req: &a2a.SendMessageRequest{}}
	s.send(b) // warm the connection
	return s
}

func (s *sender) send(b *testing.B) time.Duration {
	s.req.Message = a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))
	start := time.Now()
	if _, err := s.c.SendMessage(context.Background(), s.req); err != nil {
		b.Fatalf("SendMessage: %v", err)
	}
	return time.Since(start)
}

// BenchmarkSendMessage measures a SendMessage round trip through a real a2a-go client on
// each binding, through the guarded server and through the same a2a-go handlers mounted
// bare. Each iteration makes one call to each, alternating which goes first, so load from
// elsewhere on the machine hits both alike; it reports guarded-ns/op, bare-ns/op and
// their ratio (ns/op is the pair).
func BenchmarkSendMessage(b *testing.B) {
	srv, err := New(Echo{}, echoInfo, WithGRPCAddr("127.0.0.1:0"))
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	bare := startBare(b)
	for i, iface := range srv.Card().Interfaces {
		b.Run(string(iface.Binding), func(b *testing.B) {
			guarded, plain := newSender(b, iface), newSender(b, bare.ifaces[i])
			var tg, tb time.Duration
			n := 0
			for b.Loop() {
				if n%2 == 0 {
					tg += guarded.send(b)
					tb += plain.send(b)
				} else {
					tb += plain.send(b)
					tg += guarded.send(b)
				}
				n++
			}
			b.ReportMetric(float64(tg.Nanoseconds())/float64(n), "guarded-ns/op")
			b.ReportMetric(float64(tb.Nanoseconds())/float64(n), "bare-ns/op")
			b.ReportMetric(float64(tg)/float64(tb), "guarded/bare")
		})
	}
}

// BenchmarkStartToReady measures New + Start until the card is published (listeners,
// registration, the self-check probing every interface), against binding and serving the
// same handlers bare (no card check, no self-check).
func BenchmarkStartToReady(b *testing.B) {
	for _, guarded := range []struct {
		name string
		opts []Option
	}{
		{"guarded", []Option{WithGRPCAddr("127.0.0.1:0")}},
		{"guarded+v03", []Option{WithGRPCAddr("127.0.0.1:0"), WithV03()}},
	} {
		b.Run(guarded.name, func(b *testing.B) {
			for b.Loop() {
				srv, err := New(Echo{}, append([]Option{echoInfo}, guarded.opts...)...)
				if err != nil {
					b.Fatal(err)
				}
				if err := srv.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = srv.Shutdown(context.Background())
				b.StartTimer()
			}
		})
	}
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			a := startBareUnchecked(b)
			b.StopTimer()
			a()
			b.StartTimer()
		}
	})
}

// startBareUnchecked binds and serves the bare handlers and returns their stop function.
func startBareUnchecked(b *testing.B) func() {
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	h := a2asrv.NewHandler(Echo{})
	mux := http.NewServeMux()
	mux.Handle(PathJSONRPC, a2asrv.NewJSONRPCHandler(h))
	mux.Handle(PathREST+"/", http.StripPrefix(PathREST, a2asrv.NewRESTHandler(h)))
	hs, gs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, grpc.NewServer()
	a2agrpc.NewHandler(h).RegisterWith(gs)
	go func() { _ = hs.Serve(hl) }()
	go func() { _ = gs.Serve(gl) }()
	return func() { _ = hs.Close(); gs.Stop() }
}
