package probe

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// prober sends one binding's lookup (GetTask of an unknown task) at one address and
// reports what the wire showed; attempt classifies it. Each binding's prober is in a
// file of its own (jsonrpc.go, grpc.go, httpjson.go) and takes the protocol version from
// req.
type prober func(ctx context.Context, req request) attempt

// probers is the prober of every binding probe checks: a new binding is one file with
// its prober and one line here.
var probers = map[a2a.TransportProtocol]prober{
	a2a.TransportProtocolJSONRPC:  probeJSONRPC,
	a2a.TransportProtocolGRPC:     probeGRPC,
	a2a.TransportProtocolHTTPJSON: probeHTTPJSON,
}
