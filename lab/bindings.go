package lab

import (
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/a2abind/a2abind/card"
)

// bindingVersion names one binding of one protocol version.
type bindingVersion struct {
	binding a2a.TransportProtocol
	version string
}

// httpBinding is how the lab serves one binding of one version on its HTTP listener:
// a2a-go's handler for it, and how that handler is routed at the mount's path.
type httpBinding struct {
	handler func(a2asrv.RequestHandler, ...a2asrv.TransportOption) http.Handler
	route   func(mux *http.ServeMux, path string, h http.Handler)
}

// httpBindings is every binding and version WithJSONRPC and WithREST mount: a new one is
// one entry here.
var httpBindings = map[bindingVersion]httpBinding{
	{a2a.TransportProtocolJSONRPC, card.V1}:   {a2asrv.NewJSONRPCHandler, routeExact},
	{a2a.TransportProtocolJSONRPC, card.V03}:  {a2av0.NewJSONRPCHandler, routeExact},
	{a2a.TransportProtocolHTTPJSON, card.V1}:  {a2asrv.NewRESTHandler, routeTree},
	{a2a.TransportProtocolHTTPJSON, card.V03}: {a2av0.NewRESTHandler, routeV03Tree},
}

// grpcServices is the A2A gRPC service of every protocol version WithGRPC registers: a
// new version is one entry here and one GRPCMode.
var grpcServices = map[string]func(a2asrv.RequestHandler, *grpc.Server){
	card.V1:  func(h a2asrv.RequestHandler, s *grpc.Server) { a2agrpc.NewHandler(h).RegisterWith(s) },
	card.V03: func(h a2asrv.RequestHandler, s *grpc.Server) { a2agrpcv0.NewHandler(h).RegisterWith(s) },
}

// grpcModeVersions are the versions whose service each GRPCMode registers, in order.
var grpcModeVersions = map[GRPCMode][]string{
	GRPCNoService: nil,
	GRPCV1:        {card.V1},
	GRPCV03:       {card.V03},
	GRPCBoth:      {card.V1, card.V03},
}

// routeExact serves h at path only (JSON-RPC: one endpoint).
func routeExact(mux *http.ServeMux, path string, h http.Handler) { mux.Handle(path, h) }

// routeTree serves h at every route under path, with path stripped (HTTP+JSON: the
// routes are {path}/tasks/..., {path}/message:send, ...).
func routeTree(mux *http.ServeMux, path string, h http.Handler) {
	if path == "/" {
		mux.Handle(path, h)
		return
	}
	mux.Handle(path+"/", http.StripPrefix(path, h))
}

// routeV03Tree serves h at the v0.3 HTTP+JSON routes under path: {path}/v1/... (a2a-go
// v2.4.0, the v0.3 specification), so 1.0 and 0.3 may share one interface URL, as
// a2a-js legacyCompat does.
func routeV03Tree(mux *http.ServeMux, path string, h http.Handler) {
	base := strings.TrimSuffix(path, "/")
	mux.Handle(base+a2av0.RESTPathPrefix+"/", http.StripPrefix(base, h))
}
