// Package pooled is the baseline a2abind's probe is measured against: a plain pooled
// prober written the obvious way with the a2a-go v2.4.0 client. One keep-alive HTTP
// client shared by every target, one gRPC channel per address, the card fetched with
// a2a-go's resolver, and one GetTask lookup of a random task id per declared interface
// through an a2a-go client; TaskNotFound means the interface is served. It diagnoses
// nothing (no other binding or version is tried when a lookup fails), which is what
// makes it the floor a prober with diagnosis is compared with. Only bench.sh and the
// benchmarks use it.
package pooled

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Prober holds the shared connections. It is safe for concurrent use.
type Prober struct {
	// Timeout bounds each target (card fetch and lookups).
	Timeout time.Duration

	http     *http.Client
	resolver *agentcard.Resolver

	mu    sync.Mutex
	chans map[string]*grpc.ClientConn
}

// New returns a Prober with a fresh keep-alive HTTP client.
func New(timeout time.Duration) *Prober {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8, IdleConnTimeout: 30 * time.Second}}
	return &Prober{Timeout: timeout, http: hc, resolver: agentcard.NewResolver(hc), chans: map[string]*grpc.ClientConn{}}
}

// Close closes every connection.
func (p *Prober) Close() {
	p.http.CloseIdleConnections()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.chans {
		_ = c.Close()
	}
	p.chans = nil
}

// channel returns the one gRPC channel of addr.
func (p *Prober) channel(addr string) (*grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.chans[addr]; c != nil {
		return c, nil
	}
	c, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	p.chans[addr] = c
	return c, nil
}

// Result is one interface's lookup.
type Result struct {
	URL     string
	Binding a2a.TransportProtocol
	Served  bool
	Err     string
}

// Probe fetches the card at baseURL and looks up a random task at each declared
// interface, one after the other.
func (p *Prober) Probe(ctx context.Context, baseURL string) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	c, err := p.resolver.Resolve(ctx, baseURL)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(c.SupportedInterfaces))
	for _, iface := range c.SupportedInterfaces {
		out = append(out, p.Lookup(ctx, iface))
	}
	return out, nil
}

// Lookup makes one GetTask lookup at iface through an a2a-go client.
func (p *Prober) Lookup(ctx context.Context, iface *a2a.AgentInterface) Result {
	r := Result{URL: iface.URL, Binding: iface.ProtocolBinding}
	grpcT := a2aclient.TransportFactoryFn(func(_ context.Context, _ *a2a.AgentCard, i *a2a.AgentInterface) (a2aclient.Transport, error) {
		conn, err := p.channel(i.URL)
		if err != nil {
			return nil, err
		}
		return a2agrpc.NewGRPCTransportFromClient(a2apb.NewA2AServiceClient(conn)), nil
	})
	client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface},
		a2aclient.WithJSONRPCTransport(p.http), a2aclient.WithRESTTransport(p.http),
		a2aclient.WithTransport(a2a.TransportProtocolGRPC, grpcT))
	if err != nil {
		r.Err = err.Error()
		return r
	}
	defer func() { _ = client.Destroy() }()
	_, err = client.GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID("pooled-probe-" + a2a.NewMessageID())})
	r.Served = errors.Is(err, a2a.ErrTaskNotFound)
	if !r.Served && err != nil {
		r.Err = err.Error()
	}
	return r
}
