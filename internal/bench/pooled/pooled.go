// Package pooled is the baseline a2abind's probe is measured against: a plain pooled
// prober written the obvious way with the a2a-go v2.4.0 client. One keep-alive HTTP
// client shared by every target, one gRPC channel per address, the card fetched with
// a2a-go's resolver, and one GetTask lookup of a random task id per declared interface
// through an a2a-go client; TaskNotFound means the interface is served. It diagnoses
// nothing (no other binding or version is tried when a lookup fails), which is what
// makes it the floor a prober with diagnosis is compared with. With Capabilities set it
// also asks, on the first interface of each binding whose lookup was served, the three
// side-effect-free capability calls a2abind's probe makes (SubscribeToTask read to its
// first event or error, ListTaskPushConfigs, GetExtendedAgentCard, of a random task id),
// through the same client, one after the other: the baseline of the probe as shipped.
// Only bench.sh and the benchmarks use it.
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
	// Capabilities makes the capability calls beside the lookups (default false).
	Capabilities bool

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

// Result is one interface's lookup, and its capability calls when it was asked them.
type Result struct {
	URL     string
	Binding a2a.TransportProtocol
	Served  bool
	Err     string
	Calls   []Call `json:",omitempty"`
}

// Call is one capability call, judged roughly as a2abind's probe does: the method
// answers (TaskNotFound for the random id, a list, a card) or it is refused.
type Call struct {
	Method string
	Served bool
	Err    string `json:",omitempty"`
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
	asked := map[a2a.TransportProtocol]bool{}
	for _, iface := range c.SupportedInterfaces {
		caps := p.Capabilities && !asked[iface.ProtocolBinding]
		r := p.lookup(ctx, iface, caps)
		asked[iface.ProtocolBinding] = asked[iface.ProtocolBinding] || len(r.Calls) > 0
		out = append(out, r)
	}
	return out, nil
}

// Lookup makes one GetTask lookup at iface through an a2a-go client.
func (p *Prober) Lookup(ctx context.Context, iface *a2a.AgentInterface) Result {
	return p.lookup(ctx, iface, false)
}

// lookup is Lookup, followed by the capability calls when caps is set and the lookup
// was served.
func (p *Prober) lookup(ctx context.Context, iface *a2a.AgentInterface, caps bool) Result {
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
	if caps && r.Served {
		r.Calls = capabilityCalls(ctx, client)
	}
	return r
}

// refused are the errors that say a capability call is not served.
var refused = []error{a2a.ErrUnsupportedOperation, a2a.ErrMethodNotFound,
	a2a.ErrPushNotificationNotSupported, a2a.ErrExtendedCardNotConfigured}

// capabilityCalls makes the three capability calls through client, in turn.
func capabilityCalls(ctx context.Context, client *a2aclient.Client) []Call {
	id := a2a.TaskID("pooled-probe-" + a2a.NewMessageID())
	judge := func(method string, err error) Call {
		c := Call{Method: method, Served: err == nil || errors.Is(err, a2a.ErrTaskNotFound)}
		for _, r := range refused {
			if errors.Is(err, r) {
				c.Served = false
			}
		}
		if err != nil {
			c.Err = err.Error()
		}
		return c
	}
	var subErr error
	for _, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
		subErr = err
		break // the first event or error says enough
	}
	_, listErr := client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: id})
	_, cardErr := client.GetExtendedAgentCard(ctx, &a2a.GetExtendedAgentCardRequest{})
	return []Call{judge("SubscribeToTask", subErr), judge("ListTaskPushConfigs", listErr),
		judge("GetExtendedAgentCard", cardErr)}
}
