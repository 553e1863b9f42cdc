package server

import (
	"net"
	"strings"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// Paths on the HTTP listener. Each is written here only: the mux and the derived card
// both read them from httpRoutes, so the card cannot name a path nobody mounted.
const (
	// PathJSONRPC serves the JSON-RPC binding, protocol version 1.0.
	PathJSONRPC = "/a2a/jsonrpc"
	// PathREST serves the HTTP+JSON binding, protocol version 1.0 (routes below it).
	PathREST = "/a2a/rest"
	// PathJSONRPCV03 serves the JSON-RPC binding, protocol version 0.3 (WithV03).
	PathJSONRPCV03 = "/a2a/v0.3/jsonrpc"
	// PathRESTV03 serves the HTTP+JSON binding, protocol version 0.3 (WithV03).
	PathRESTV03 = "/a2a/v0.3/rest"
	// PathHealthz answers 200 while the process serves HTTP (liveness).
	PathHealthz = "/healthz"
	// PathReadyz answers 200 once the self-check passed and until shutdown starts
	// (readiness), 503 otherwise.
	PathReadyz = "/readyz"
)

// gRPC service names, by protocol version, from the SDK's generated code.
var (
	grpcServiceV1  = a2apb.A2AService_ServiceDesc.ServiceName   // "lf.a2a.v1.A2AService"
	grpcServiceV03 = a2apbv0.A2AService_ServiceDesc.ServiceName // "a2a.v1.A2AService"
)

// route is one binding mounted on the HTTP listener.
type route struct {
	binding   a2a.TransportProtocol
	version   string
	path      string
	afterGRPC bool // in card order, gRPC of the version comes before this binding
}

// httpRoutes are the HTTP bindings in card order; v0.3 ones only with WithV03.
var httpRoutes = []route{
	{a2a.TransportProtocolJSONRPC, card.V1, PathJSONRPC, false},
	{a2a.TransportProtocolHTTPJSON, card.V1, PathREST, true},
	{a2a.TransportProtocolJSONRPC, card.V03, PathJSONRPCV03, false},
	{a2a.TransportProtocolHTTPJSON, card.V03, PathRESTV03, true},
}

// listener kinds.
const (
	onHTTP = "http"
	onGRPC = "grpc"
)

// served is one (binding, version) this server serves, with the address the card
// advertises for it and the one the self-check dials.
type served struct {
	binding  a2a.TransportProtocol
	version  string
	listener string // onHTTP or onGRPC
	path     string // HTTP bindings only
	public   string // what the card advertises
	local    string // what the self-check dials
}

func (s served) String() string { return string(s.binding) + " " + s.version + " at " + s.public }

func (s served) iface() card.Interface {
	return card.Interface{URL: s.public, Binding: s.binding, ProtocolVersion: s.version}
}

// endpoint is where one listener is reachable: the advertised scheme, host and port
// (and base path for HTTP), and how a declared host is compared with it.
type endpoint struct {
	scheme   string // "http" or "https"; "" for the gRPC listener
	host     string // advertised host
	port     string
	basePath string // public URL path prefix, without a trailing slash
	anyHost  bool   // the listener is bound to all interfaces and no public address is set
	local    string // host:port the self-check dials
}

// hostPort is the advertised host:port.
func (e endpoint) hostPort() string { return net.JoinHostPort(e.host, e.port) }

// baseURL is the advertised base URL of an HTTP endpoint.
func (e endpoint) baseURL() string { return e.scheme + "://" + e.hostPort() + e.basePath }

// matchesHost reports whether a declared host names this endpoint (addr.Address.SameHost).
func (e endpoint) matchesHost(declared addr.Address) bool {
	return e.anyHost || declared.SameHost(addr.Address{Host: e.host})
}

// listenEndpoint describes a listener reachable at its own address. A listener bound to
// all interfaces is advertised as loopback (log says so; set a public address).
func listenEndpoint(la net.Addr, scheme string) endpoint {
	a, _ := addr.ParseAddress(la.String(), a2a.TransportProtocolGRPC)
	e := endpoint{scheme: scheme, host: a.Host, port: a.Port}
	if a.Wildcard() {
		e.anyHost = true
		e.host = "127.0.0.1" // Go's [::] listeners are dual-stack
	}
	e.local = net.JoinHostPort(e.host, e.port)
	return e
}

// publicHTTPEndpoint describes the HTTP listener behind a public base URL, read by
// addr.ParseAddress like every interface URL.
func publicHTTPEndpoint(raw string, local string) (endpoint, error) {
	a, err := addr.ParseAddress(raw, a2a.TransportProtocolJSONRPC)
	if err != nil || a.Local() {
		return endpoint{}, errorf("public URL %q must be an absolute http:// or https:// URL", raw)
	}
	if a.Query != "" || strings.Contains(raw, "#") {
		return endpoint{}, errorf("public URL %q must not carry a query or fragment", raw)
	}
	return endpoint{scheme: a.Scheme, host: a.Host, port: a.Port, basePath: a.Path, local: local}, nil
}

// publicGRPCEndpoint describes the gRPC listener behind a public host:port.
func publicGRPCEndpoint(hostport string, local string) (endpoint, error) {
	a, err := addr.ParseAddress(hostport, a2a.TransportProtocolGRPC)
	if err == nil && !a.GoGRPCAccepts() {
		return endpoint{}, errorf("public gRPC address %q must be a bare host:port (%v)", hostport, addr.GoGRPCTarget(hostport))
	}
	if err != nil || a.Scheme != "" {
		return endpoint{}, errorf("public gRPC address %q must be host:port", hostport)
	}
	return endpoint{host: a.Host, port: a.Port, local: local}, nil
}
