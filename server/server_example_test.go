package server_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/server"
)

// The derived card lists what is served, in preference order.
func ExampleNew() {
	srv, err := server.New(lab.Echo{}, server.WithGRPCAddr("127.0.0.1:0"), server.WithV03(),
		server.WithAgentInfo("echo", "Answers with the text it was sent", "1.0.0", lab.EchoSkill))
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown(context.Background())
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	for _, i := range srv.Card().Interfaces {
		fmt.Println(i.Binding, i.ProtocolVersion, i.Source)
	}
	// Output:
	// JSONRPC 1.0 supportedInterfaces[0]
	// GRPC 1.0 supportedInterfaces[1]
	// HTTP+JSON 1.0 supportedInterfaces[2]
	// JSONRPC 0.3 supportedInterfaces[3]
	// GRPC 0.3 supportedInterfaces[4]
	// HTTP+JSON 0.3 supportedInterfaces[5]
}

// A hand-written card naming gRPC at the HTTP listener is refused before anything serves.
func ExampleWithCardJSON() {
	addr, _ := lab.ClosedAddr() // a free loopback port
	seed := []byte(`{"name":"seed","supportedInterfaces":[
		{"url":"http://` + addr + `","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`)
	_, err := server.New(lab.Echo{}, server.WithHTTPAddr(addr), server.WithCardJSON(seed))
	var be *server.BindingError
	fmt.Println(errors.Is(err, server.ErrCardMismatch), errors.As(err, &be))
	fmt.Println(be.Problem)
	// Output:
	// true true
	// gRPC is not served at that address
}
