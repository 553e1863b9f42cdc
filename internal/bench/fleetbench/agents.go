package main

import (
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
)

// agents are a2a-go v2.4.0 servers on loopback, each a healthy three-interface agent
// (JSON-RPC and HTTP+JSON on one HTTP listener, gRPC on a second), spread over the
// 127.0.0.1 and 127.0.0.2 origins. Every listener counts the TCP connections it
// accepts, so that a run's connections are counted server-side.
type agents struct {
	urls     []string
	accepted atomic.Int64
	closers  []func()
}

// counting counts the connections a listener accepts.
type counting struct {
	net.Listener
	n *atomic.Int64
}

func (l counting) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func startAgents(n int) (*agents, error) {
	as := &agents{}
	hosts := []string{"127.0.0.1", "127.0.0.2"}
	for i := range n {
		if err := as.start(hosts[i%len(hosts)]); err != nil {
			as.close()
			return nil, err
		}
	}
	return as, nil
}

func (as *agents) start(host string) error {
	hl, err := net.Listen("tcp", host+":0")
	if err != nil {
		return err
	}
	gl, err := net.Listen("tcp", host+":0")
	if err != nil {
		hl.Close()
		return err
	}
	base := "http://" + hl.Addr().String()
	doc, err := json.Marshal(lab.V1Card("fleet",
		lab.Decl{URL: base + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1},
		lab.Decl{URL: gl.Addr().String(), Binding: lab.GRPC, Version: card.V1},
		lab.Decl{URL: base + lab.PathREST, Binding: lab.HTTPJSON, Version: card.V1}))
	if err != nil {
		return err
	}
	h := a2asrv.NewHandler(lab.Echo{})
	mux := http.NewServeMux()
	mux.HandleFunc(card.WellKnownPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	})
	mux.Handle(lab.PathJSONRPC, a2asrv.NewJSONRPCHandler(h))
	mux.Handle(lab.PathREST+"/", http.StripPrefix(lab.PathREST, a2asrv.NewRESTHandler(h)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	gs := grpc.NewServer()
	a2agrpc.NewHandler(h).RegisterWith(gs)
	go func() { _ = hs.Serve(counting{hl, &as.accepted}) }()
	go func() { _ = gs.Serve(counting{gl, &as.accepted}) }()
	as.urls = append(as.urls, base)
	as.closers = append(as.closers, func() { _ = hs.Close(); gs.Stop() })
	return nil
}

func (as *agents) close() {
	for _, c := range as.closers {
		c()
	}
}
