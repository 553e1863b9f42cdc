package server

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/bindtable"
)

// part is one handler mounted at one ServeMux pattern.
type part struct {
	pattern string
	handler http.Handler
}

// parts are the card, health, readiness and every binding at their paths, each with
// the request body bounded: what Handler and Mount serve.
func (srv *Server) parts() []part {
	ps := []part{
		{card.WellKnownPath, http.HandlerFunc(srv.serveCard)},
		{PathHealthz, http.HandlerFunc(serveHealthz)},
		{PathReadyz, http.HandlerFunc(srv.serveReadyz)},
	}
	ps = append(ps, srv.jwksParts()...) // sign.go
	for _, rt := range httpRoutes {
		if rt.version == card.V03 && !srv.o.v03 {
			continue
		}
		k := bindtable.Key{Binding: rt.binding, Version: rt.version}
		b := bindtable.Table[k]
		h := b.New(srv.handler)
		if b.Tenant != nil && srv.o.tenant != "" {
			h = srv.tenantREST(b.Tenant)
		}
		for _, m := range b.Route.Mounts(rt.path, gates[k](srv, rt, h)) {
			ps = append(ps, part{m.Pattern, m.Handler})
		}
	}
	limit := srv.o.maxRequestBytes
	for i, p := range ps {
		next := p.handler
		ps[i].handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			next.ServeHTTP(w, r)
		})
	}
	return ps
}

// gates are what the server puts around a2a-go's handler of each HTTP binding and
// version (internal/bindtable says which handler): the media-type and version gates, and
// the first-event and name fixes.
var gates = map[bindtable.Key]func(srv *Server, rt route, h http.Handler) http.Handler{
	{Binding: a2a.TransportProtocolJSONRPC, Version: card.V1}: func(srv *Server, rt route, h http.Handler) http.Handler {
		return srv.gateJSONRPC(rt, jsonrpcProtoNames(firstEvent(true, h)))
	},
	{Binding: a2a.TransportProtocolJSONRPC, Version: card.V03}: func(srv *Server, rt route, h http.Handler) http.Handler {
		return srv.gateJSONRPC(rt, firstEvent(true, h))
	},
	{Binding: a2a.TransportProtocolHTTPJSON, Version: card.V1}: func(srv *Server, rt route, h http.Handler) http.Handler {
		return srv.gateREST(rt, firstEvent(false, h))
	},
	{Binding: a2a.TransportProtocolHTTPJSON, Version: card.V03}: func(srv *Server, rt route, h http.Handler) http.Handler {
		return srv.gateREST(rt, restV03Routes(h))
	},
}

func serveHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, "ok\n")
}

// Handler is the whole HTTP side of the agent: the card, /healthz, /readyz and every
// HTTP binding at its path (PathJSONRPC, PathREST, ...), a 404 naming what is served
// for anything else, and gRPC requests routed by content type (WithGRPCOnHTTP) or
// answered with 415 naming where gRPC is served. It is what the server's own HTTP
// listener serves; with WithMounted, serve it at the root of one's own HTTP server (or
// use Mount to add the parts to one's own mux).
func (srv *Server) Handler() http.Handler { return srv.root }

// Mount registers the card, /healthz, /readyz and every HTTP binding on mux at their
// paths (card.WellKnownPath, PathHealthz, PathReadyz, PathJSONRPC, PathREST, ...), beside
// the caller's own routes. It fails, registering nothing, when one of those patterns is
// already registered (a conflict ServeMux finds only while registering is an error too,
// with the parts before it registered). The card is published only once Start's self-check reached each
// binding as mounted, over the real sockets.
func (srv *Server) Mount(mux *http.ServeMux) error {
	ps := srv.parts()
	for _, p := range ps {
		if _, pat := mux.Handler(patternProbe(p.pattern)); pat == p.pattern {
			return errorf("mount: the mux already serves %s", p.pattern)
		}
	}
	for _, p := range ps {
		if err := register(mux, p); err != nil {
			return err
		}
	}
	return nil
}

// patternProbe is a request whose path a pattern matches, to ask a mux what serves it.
func patternProbe(pattern string) *http.Request {
	return &http.Request{Method: http.MethodGet, URL: &url.URL{Path: strings.TrimSuffix(pattern, "{$}")}, Host: "localhost"}
}

// register is mux.Handle with its panic on a conflicting pattern turned into an error.
func register(mux *http.ServeMux, p part) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errorf("mount %s: %v", p.pattern, r)
		}
	}()
	mux.Handle(p.pattern, p.handler)
	return nil
}

// rootHandler routes the HTTP listener: gRPC by content type first, then the parts,
// and a 404 naming what is served for anything else.
func (srv *Server) rootHandler() http.Handler {
	mux := http.NewServeMux()
	for _, p := range srv.parts() {
		mux.Handle(p.pattern, p.handler)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("404 no A2A binding at %s; %s", r.URL.Path, srv.whereText()), http.StatusNotFound)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if srv.refusedWhileDraining(w, r) {
			return
		}
		srv.httpInFlight.Add(1)
		defer srv.httpInFlight.Add(-1)
		if r.ProtoMajor == 1 {
			w = &drainingWriter{ResponseWriter: w, srv: srv}
		}
		if card.IsGRPCRequest(r) {
			native := r.ProtoMajor == 2
			if srv.o.grpcOnHTTP && native {
				if !srv.grpcReady.Load() {
					w.Header().Set("Content-Type", "application/grpc")
					w.Header().Set("Grpc-Status", "14")
					w.Header().Set("Grpc-Message", "a2abind: gRPC is starting")
					w.WriteHeader(http.StatusOK)
					return
				}
				srv.grpcSrv.ServeHTTP(w, r)
				return
			}
			if srv.o.grpcOnHTTP && r.ProtoMajor != 2 {
				http.Error(w, "a2abind: gRPC on this port needs HTTP/2 (prior knowledge over cleartext, ALPN h2 over TLS), not HTTP/1.1",
					http.StatusUnsupportedMediaType)
				return
			}
			srv.grpcElsewhere(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// requestBodyTimeout bounds how long an HTTP request (headers and body) may take to
// arrive (the http.Server's ReadTimeout), so that a client trickling its body cannot hold
// a handler forever. net/http lifts the deadline once the body is read, so long answers
// (SSE streams, slow SendMessage calls) are not bounded by it. A variable for the
// package's tests only.
var requestBodyTimeout = 30 * time.Second

func (srv *Server) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !srv.ready.Load() {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	_, _ = io.WriteString(w, "ready\n")
}
