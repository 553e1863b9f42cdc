// Package bindtable is the one table from an HTTP binding of A2A and its protocol
// version to a2a-go's handler for it and how that handler is routed at an interface's
// path. The server (which puts its gates around the handler) and the lab take which
// handler serves a binding from here: a new binding or version is one entry.
package bindtable

import (
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Protocol versions, as cards declare them (card.V1, card.V03).
const (
	v1  = "1.0"
	v03 = "0.3"
)

// Key names one binding of one protocol version.
type Key struct {
	Binding a2a.TransportProtocol
	Version string
}

// Route is how a binding's handler is routed at its interface path.
type Route int

const (
	// Exact: at the path, and at the path + "/" (clients join the URL with "/").
	Exact Route = iota
	// Tree: every route under the path, the path stripped ({path}/message:send).
	Tree
	// V03Tree: the v0.3 routes under the path, {path}/v1/..., the path stripped, so
	// 1.0 and 0.3 may share one interface URL (as a2a-js legacyCompat does).
	V03Tree
)

// HTTP is how one binding of one version is served on an HTTP listener.
type HTTP struct {
	// New is a2a-go's handler of the binding.
	New func(a2asrv.RequestHandler, ...a2asrv.TransportOption) http.Handler
	// Tenant is a2a-go's handler reading the tenant from a path prefix matching the
	// template; nil where the tenant travels in the request.
	Tenant func(template string, h a2asrv.RequestHandler, opts ...a2asrv.TransportOption) http.Handler
	// Route is how the handler is routed at the interface path.
	Route Route
}

// Table is every HTTP binding and version a2abind serves.
var Table = map[Key]HTTP{
	{a2a.TransportProtocolJSONRPC, v1}:   {New: a2asrv.NewJSONRPCHandler, Route: Exact},
	{a2a.TransportProtocolJSONRPC, v03}:  {New: a2av0.NewJSONRPCHandler, Route: Exact},
	{a2a.TransportProtocolHTTPJSON, v1}:  {New: a2asrv.NewRESTHandler, Tenant: a2asrv.NewTenantRESTHandler, Route: Tree},
	{a2a.TransportProtocolHTTPJSON, v03}: {New: a2av0.NewRESTHandler, Route: V03Tree},
}

// Mount is one handler at one http.ServeMux pattern.
type Mount struct {
	Pattern string
	Handler http.Handler
}

// Mounts are the patterns and handlers that serve h at path as r routes it.
func (r Route) Mounts(path string, h http.Handler) []Mount {
	switch {
	case r == Exact && strings.HasSuffix(path, "/"):
		return []Mount{{path, h}}
	case r == Exact:
		return []Mount{{path, h}, {path + "/{$}", h}}
	case r == Tree && path == "/":
		return []Mount{{path, h}}
	case r == Tree:
		return []Mount{{path + "/", http.StripPrefix(path, h)}}
	default:
		base := strings.TrimSuffix(path, "/")
		return []Mount{{base + a2av0.RESTPathPrefix + "/", http.StripPrefix(base, h)}}
	}
}
