package delegate

import (
	"context"
	"fmt"
	"net"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/restv03"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// transportFunc builds the a2a-go transport of one binding for iface, called the way w
// says (way.go), for each protocol version the binding speaks.
type transportFunc func(c *Client, iface card.Interface, w probe.Way) (a2aclient.Transport, error)

// transports is the transport of every binding the delegate calls: a new binding is
// one function with the signature above and one line here.
var transports = map[a2a.TransportProtocol]transportFunc{
	a2a.TransportProtocolJSONRPC:  jsonrpcTransport,
	a2a.TransportProtocolHTTPJSON: restTransport,
	a2a.TransportProtocolGRPC:     grpcTransport,
}

// build makes the transport of iface, called the way w says (way.go).
func (c *Client) build(iface card.Interface, w probe.Way) (a2aclient.Transport, error) {
	if t, ok := transports[iface.Binding]; ok {
		return t(c, iface, w)
	}
	return nil, fmt.Errorf("binding %q is not supported", iface.Binding)
}

func jsonrpcTransport(c *Client, iface card.Interface, _ probe.Way) (a2aclient.Transport, error) {
	if iface.ProtocolVersion == card.V03 {
		return a2av0.NewJSONRPCTransport(a2av0.JSONRPCTransportConfig{URL: iface.URL, Client: c.httpClient}), nil
	}
	return a2aclient.NewJSONRPCTransport(iface.URL, c.httpClient), nil
}

func restTransport(c *Client, iface card.Interface, w probe.Way) (a2aclient.Transport, error) {
	if iface.ProtocolVersion == card.V03 {
		// the dialect of the routes probe found served (way.go: the specification's
		// under {url}/v1 where it found none)
		d, ok := restv03.DialectAt(w.Prefix)
		if !ok {
			return nil, fmt.Errorf("no v0.3 HTTP+JSON dialect is served under %q", w.Prefix)
		}
		return newRESTV03Transport(iface.URL, d, c.restClient()), nil
	}
	a := c.addrs[iface.Key()]
	u, err := a.URL(c.dialsTLS(a))
	if err != nil {
		return nil, err
	}
	return a2aclient.NewRESTTransport(u, c.restClient()), nil
}

func grpcTransport(c *Client, iface card.Interface, w probe.Way) (a2aclient.Transport, error) {
	a := c.addrs[iface.Key()]
	var creds credentials.TransportCredentials = insecure.NewCredentials()
	if w.TLS {
		creds = credentials.NewTLS(c.tlsConfig)
	}
	dialer := c.opts.conn.Dial.Dialer()
	dopts := append(wire.GRPCDialOptions(func(ctx context.Context, addr string) (net.Conn, error) {
		return dialer.DialContext(ctx, "tcp", addr)
	}),
		grpc.WithTransportCredentials(creds),
		grpc.WithChainUnaryInterceptor(unaryRecorder),
		grpc.WithChainStreamInterceptor(streamRecorder),
	)
	dopts = append(dopts, telemetry.GRPCDialOptions()...) // the attempt's trace context goes as metadata
	conn, err := grpc.NewClient("passthrough:///"+a.HostPort(), dopts...)
	if err != nil {
		return nil, err
	}
	if iface.ProtocolVersion == card.V03 {
		return a2agrpcv0.NewGRPCTransport(conn), nil
	}
	return a2agrpc.NewGRPCTransport(conn), nil
}
