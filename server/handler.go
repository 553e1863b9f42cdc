package server

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
)

// httpHandler routes the HTTP listener: gRPC by content type first, then the card,
// health, readiness and the bindings at their paths.
func (srv *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(card.WellKnownPath, srv.serveCard)
	mux.HandleFunc(PathHealthz, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc(PathReadyz, srv.serveReadyz)
	for _, rt := range httpRoutes {
		if rt.version == card.V03 && !srv.o.v03 {
			continue
		}
		switch {
		case rt.binding == a2a.TransportProtocolJSONRPC && rt.version == card.V1:
			mux.Handle(rt.path, srv.gateJSONRPC(rt, a2asrv.NewJSONRPCHandler(srv.handler)))
		case rt.binding == a2a.TransportProtocolJSONRPC:
			mux.Handle(rt.path, srv.gateJSONRPC(rt, a2av0.NewJSONRPCHandler(srv.handler)))
		case rt.version == card.V1 && srv.o.tenant != "":
			mux.Handle(rt.path+"/", srv.gateREST(rt, http.StripPrefix(rt.path, srv.tenantREST(srv.handler))))
		case rt.version == card.V1:
			mux.Handle(rt.path+"/", srv.gateREST(rt, http.StripPrefix(rt.path, a2asrv.NewRESTHandler(srv.handler))))
		default:
			mux.Handle(rt.path+"/", srv.gateREST(rt, http.StripPrefix(rt.path, a2av0.NewRESTHandler(srv.handler))))
		}
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("404 no A2A binding at %s; %s", r.URL.Path, srv.whereText()), http.StatusNotFound)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isGRPC(r) {
			ct := strings.ToLower(r.Header.Get("Content-Type"))
			native := r.ProtoMajor == 2 && (ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+"))
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
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
		mux.ServeHTTP(w, r)
	})
}

// maxRequestBytes bounds the body of an HTTP request to a binding (gRPC messages are
// bounded by grpc-go's own 4 MiB default).
const maxRequestBytes = 8 << 20

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
