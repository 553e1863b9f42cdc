package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"google.golang.org/grpc"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/server"
)

// An agent with its own mux and gRPC server mounts the bindings beside its own routes;
// the card is published only once Start reached each of them over those sockets.
func ExampleServer_Mount() {
	lis, _ := net.Listen("tcp", "127.0.0.1:0")
	glis, _ := net.Listen("tcp", "127.0.0.1:0")
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello\n") })
	gs := grpc.NewServer()

	srv, err := server.New(lab.Echo{}, server.WithAgentInfo("echo", "Answers with the text it was sent", "1.0.0", lab.EchoSkill),
		server.WithMounted(lis.Addr().String(), glis.Addr().String()))
	if err != nil {
		panic(err)
	}
	if err := srv.Mount(mux); err != nil {
		panic(err)
	}
	srv.RegisterGRPC(gs)
	hs := &http.Server{Handler: mux}
	go func() { _ = hs.Serve(lis) }()
	go func() { _ = gs.Serve(glis) }()
	defer gs.Stop()
	defer hs.Close()

	if err := srv.Start(context.Background()); err != nil {
		panic(err) // *server.SelfCheckError: a declared interface is not reached as mounted
	}
	defer srv.Shutdown(context.Background())
	for _, i := range srv.Card().Interfaces {
		fmt.Println(i.Binding, i.ProtocolVersion)
	}
	// Output:
	// JSONRPC 1.0
	// GRPC 1.0
	// HTTP+JSON 1.0
}

// bearer is the agent's own authentication: it names the user of a known token.
type bearer map[string]string

func (b bearer) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if v, ok := cc.ServiceParams().Get("authorization"); ok && len(v) > 0 {
		if user, ok := b[strings.TrimPrefix(v[0], "Bearer ")]; ok {
			cc.User = a2asrv.NewAuthenticatedUser(user, nil)
		}
	}
	return ctx, nil, nil
}

func (bearer) After(context.Context, *a2asrv.CallContext, *a2asrv.Response) error { return nil }

// An agent that keeps its own mux, gRPC server, task store and bearer-token
// authentication adopts the publish-time invariant with one New, Mount, RegisterGRPC
// and Start; the card declares the bearer scheme.
func ExampleWithHandlerOptions() {
	lis, _ := net.Listen("tcp", "127.0.0.1:0")
	glis, _ := net.Listen("tcp", "127.0.0.1:0")
	mux, gs := http.NewServeMux(), grpc.NewServer()
	store := taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})

	srv, err := server.New(lab.Echo{},
		server.WithAgentInfo("echo", "Answers with the text it was sent", "1.0.0", lab.EchoSkill),
		server.WithMounted(lis.Addr().String(), glis.Addr().String()),
		server.WithSecurity(a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}},
			a2a.SecurityRequirementsOptions{{"bearer": {}}}),
		server.WithHandlerOptions(a2asrv.WithTaskStore(store), a2asrv.WithCallInterceptors(bearer{"t0k3n": "alice"})))
	if err != nil {
		panic(err)
	}
	if err := srv.Mount(mux); err != nil {
		panic(err)
	}
	srv.RegisterGRPC(gs)
	hs := &http.Server{Handler: mux}
	go func() { _ = hs.Serve(lis) }()
	go func() { _ = gs.Serve(glis) }()
	defer gs.Stop()
	defer hs.Close()
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	defer srv.Shutdown(context.Background())

	// A client with alice's token sends and lists; one without a token cannot list.
	c, _ := a2aclient.NewFromEndpoints(context.Background(), []*a2a.AgentInterface{{
		URL: srv.LocalBaseURL() + server.PathJSONRPC, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}})
	defer c.Destroy()
	alice := a2aclient.AttachServiceParams(context.Background(), a2aclient.ServiceParams{"authorization": {"Bearer t0k3n"}})
	_, _ = c.SendMessage(alice, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))})
	list, _ := c.ListTasks(alice, &a2a.ListTasksRequest{})
	_, err = c.ListTasks(context.Background(), &a2a.ListTasksRequest{})
	fmt.Println(srv.Card().SecuritySchemes, len(list.Tasks), errors.Is(err, a2a.ErrUnauthenticated))
	// Output:
	// [bearer] 1 true
}
