package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// claimed is what the published card claims, read by the one reader (card).
func claimed(c *card.Card) a2a.AgentCapabilities {
	return a2a.AgentCapabilities{Streaming: c.Capabilities.Streaming.Declared,
		PushNotifications: c.Capabilities.PushNotifications.Declared, ExtendedAgentCard: c.Capabilities.ExtendedAgentCard.Declared}
}

// servedOnWire is what probe.Check finds served of each capability, per interface it
// asked (one of each binding, v1.0 and, with WithV03, v0.3).
func servedOnWire(t *testing.T, srv *Server) map[string]a2a.AgentCapabilities {
	t.Helper()
	out := map[string]a2a.AgentCapabilities{}
	for _, cr := range probe.Check(t.Context(), srv.Card()).Capabilities {
		for _, c := range cr.Calls {
			got := out[c.Interface.String()]
			served := c.Outcome == probe.CapabilityServed
			switch cr.Name {
			case probe.Streaming:
				got.Streaming = served
			case probe.PushNotifications:
				got.PushNotifications = served
			case probe.ExtendedAgentCard:
				got.ExtendedAgentCard = served
			}
			out[c.Interface.String()] = got
		}
	}
	return out
}

// TestDerivedCardDeclaresWhatIsServed: the derived card's capability flags are exactly
// what every binding answers on the wire: streaming always, push notifications only with
// a store and a sender, the extended card only with a producer.
func TestDerivedCardDeclaresWhatIsServed(t *testing.T) {
	store, sender := push.NewInMemoryStore(), push.NewHTTPPushSender(nil)
	producer := a2asrv.ExtendedAgentCardProducerFn(func(context.Context, *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
		return nil, errors.New("not reached")
	})
	tests := []struct {
		name string
		opts []Option
		want a2a.AgentCapabilities
	}{
		{"plain", nil, a2a.AgentCapabilities{Streaming: true}},
		{"push store and sender", []Option{WithPushNotifications(NewPushConfigStore(nil), sender)}, a2a.AgentCapabilities{Streaming: true, PushNotifications: true}},
		{"push store without sender", []Option{WithPushNotifications(store, nil)}, a2a.AgentCapabilities{Streaming: true}},
		{"push sender without store", []Option{WithPushNotifications(nil, sender)}, a2a.AgentCapabilities{Streaming: true}},
		{"derived extended card", []Option{WithDerivedExtendedCard()}, a2a.AgentCapabilities{Streaming: true, ExtendedAgentCard: true}},
		{"extended card replaced", []Option{WithDerivedExtendedCard(), WithExtendedAgentCard(nil)}, a2a.AgentCapabilities{Streaming: true}},
		{"everything", []Option{WithPushNotifications(NewPushConfigStore(nil), sender), WithExtendedAgentCard(producer), WithDerivedExtendedCard()},
			a2a.AgentCapabilities{Streaming: true, PushNotifications: true, ExtendedAgentCard: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, append([]Option{WithGRPCAddr("127.0.0.1:0"), WithV03()}, tt.opts...)...)
			if diff := cmp.Diff(tt.want, claimed(srv.Card())); diff != "" {
				t.Errorf("card capabilities (-want +got):\n%s", diff)
			}
			served := servedOnWire(t, srv)
			if len(served) != 3 {
				t.Errorf("probe asked %d interfaces, want one per binding", len(served))
			}
			for iface, got := range served {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s serves (-declared +served):\n%s", iface, diff)
				}
			}
		})
	}
}

// TestDerivedExtendedCardIsTheServedCard: WithDerivedExtendedCard answers with the card
// of what is served, on every binding, and needs the agent info.
func TestDerivedExtendedCardIsTheServedCard(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithDerivedExtendedCard())
	for _, b := range bindings {
		got, err := clientFor(t, srv, b).GetExtendedAgentCard(t.Context(), &a2a.GetExtendedAgentCardRequest{})
		if err != nil {
			t.Fatalf("%s: GetExtendedAgentCard: %v", b, err)
		}
		if got.Name != srv.Card().Name || len(got.SupportedInterfaces) != len(srv.Interfaces()) || !got.Capabilities.ExtendedAgentCard {
			t.Errorf("%s: extended card = %s, %d interfaces, %+v; want the derived card", b, got.Name, len(got.SupportedInterfaces), got.Capabilities)
		}
	}
	if _, err := New(Echo{}, WithCardJSON(srv.CardJSON()), WithDerivedExtendedCard()); err == nil || !strings.Contains(err.Error(), "WithAgentInfo") {
		t.Errorf("New(WithDerivedExtendedCard, no agent info) error = %v, want one naming WithAgentInfo", err)
	}
}

// TestPushConfigStoreIsBounded: the store refuses a config over the size bound and
// beyond the per-task bound with InvalidParams, replaces in place, and frees room on
// Delete and DeleteAll.
func TestPushConfigStoreIsBounded(t *testing.T) {
	ctx := t.Context()
	s := NewPushConfigStore(nil)
	task := a2a.NewTaskID()
	for i := range DefaultPushMaxPerTask {
		if _, err := s.Save(ctx, task, &a2a.PushConfig{ID: fmt.Sprint(i), URL: "https://hooks.example/a"}); err != nil {
			t.Fatalf("Save %d: %v", i, err)
		}
	}
	if _, err := s.Save(ctx, task, &a2a.PushConfig{URL: "https://hooks.example/a"}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("Save beyond %d per task: %v, want InvalidParams", DefaultPushMaxPerTask, err)
	}
	if _, err := s.Save(ctx, task, &a2a.PushConfig{ID: "0", URL: "https://hooks.example/b"}); err != nil {
		t.Errorf("replacing config 0 at the bound: %v", err)
	}
	if err := s.Delete(ctx, task, "0"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, task, &a2a.PushConfig{URL: "https://hooks.example/a"}); err != nil {
		t.Errorf("Save after Delete: %v", err)
	}
	big := &a2a.PushConfig{URL: "https://hooks.example/" + strings.Repeat("x", DefaultPushMaxConfigBytes)}
	if _, err := s.Save(ctx, a2a.NewTaskID(), big); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("Save of a %d-byte config: %v, want InvalidParams", len(big.URL), err)
	}
	if err := s.DeleteAll(ctx, task); err != nil {
		t.Fatal(err)
	}
	if n := s.(*boundedPushStore).total; n != 0 {
		t.Errorf("after DeleteAll the store counts %d configs, want 0", n)
	}
}

// TestPushConfigStoreTotalBound: beyond its bound in all (DefaultPushMaxConfigs, made
// small here), a new config is refused until one is deleted.
func TestPushConfigStoreTotalBound(t *testing.T) {
	ctx := t.Context()
	s := NewPushConfigStore(nil).(*boundedPushStore)
	s.maxTotal = 3 * DefaultPushMaxPerTask
	for i := range s.maxTotal {
		if _, err := s.Save(ctx, a2a.TaskID(fmt.Sprint(i/DefaultPushMaxPerTask)), &a2a.PushConfig{ID: fmt.Sprint(i), URL: "https://hooks.example/a"}); err != nil {
			t.Fatalf("Save %d: %v", i, err)
		}
	}
	if _, err := s.Save(ctx, a2a.NewTaskID(), &a2a.PushConfig{URL: "https://hooks.example/a"}); !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), "at most") {
		t.Errorf("Save beyond %d in all: %v, want InvalidParams naming the bound", s.maxTotal, err)
	}
	if err := s.Delete(ctx, "0", "0"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, a2a.NewTaskID(), &a2a.PushConfig{URL: "https://hooks.example/a"}); err != nil {
		t.Errorf("Save after a Delete at the bound: %v", err)
	}
}

// TestNewRefusesCapabilityLies: a hand-written card that claims a capability this
// server does not provide is refused with a *CapabilityError naming the capability, the
// member that claims it and the option that would serve it; served as configured, the
// same card is accepted, and a capability the card leaves out is refused on the wire.
func TestNewRefusesCapabilityLies(t *testing.T) {
	sender := push.NewHTTPPushSender(nil)
	tests := []struct {
		name     string
		caps     map[string]any
		v03      map[string]any // top-level members of a v0.3 card instead of a v1.0 one
		opts     []Option
		want     []probe.Capability // refused, in order; none: accepted
		wantText []string
	}{
		{name: "push without a store", caps: map[string]any{"streaming": true, "pushNotifications": true},
			want: []probe.Capability{probe.PushNotifications}, wantText: []string{"capabilities.pushNotifications", "serve --push", "set capabilities.pushNotifications to false"}},
		{name: "push with a store but no sender", caps: map[string]any{"pushNotifications": true}, opts: []Option{WithPushNotifications(NewPushConfigStore(nil), nil)},
			want: []probe.Capability{probe.PushNotifications}},
		{name: "extended card missing", caps: map[string]any{"extendedAgentCard": true},
			want: []probe.Capability{probe.ExtendedAgentCard}, wantText: []string{"capabilities.extendedAgentCard", "serve --extended-card"}},
		{name: "v0.3 extended card missing", v03: map[string]any{"supportsAuthenticatedExtendedCard": true},
			want: []probe.Capability{probe.ExtendedAgentCard}, wantText: []string{"supportsAuthenticatedExtendedCard", "set supportsAuthenticatedExtendedCard to false"}},
		{name: "both", caps: map[string]any{"streaming": true, "pushNotifications": true, "extendedAgentCard": true},
			want: []probe.Capability{probe.PushNotifications, probe.ExtendedAgentCard}},
		{name: "all served", caps: map[string]any{"streaming": true, "pushNotifications": true, "extendedAgentCard": true},
			opts: []Option{WithPushNotifications(NewPushConfigStore(nil), sender), WithDerivedExtendedCard()}},
		{name: "claims false", caps: map[string]any{"streaming": false, "pushNotifications": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, g, a := listeners(t)
			doc := lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1})
			doc["capabilities"] = tt.caps
			opts := []Option{WithListeners(h, g), echoInfo}
			if tt.v03 != nil {
				doc = lab.V03Card("x", a.url(PathJSONRPCV03), jsonrpc)
				opts = append(opts, WithV03())
				for k, v := range tt.v03 {
					doc[k] = v
				}
			}
			srv, err := New(Echo{}, append(append(opts, WithCardJSON(mustJSON(t, doc))), tt.opts...)...)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("New() error = %v, want the card accepted", err)
				}
				_ = srv.Shutdown(t.Context())
				return
			}
			var got []probe.Capability
			for _, e := range joined(err) {
				var ce *CapabilityError
				if errors.As(e, &ce) {
					got = append(got, ce.Capability)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || !errors.Is(err, ErrCapabilityNotServed) {
				t.Fatalf("New() error = %v; refused capabilities (-want +got):\n%s", err, diff)
			}
			for _, frag := range tt.wantText {
				if !strings.Contains(err.Error(), frag) {
					t.Errorf("error %q does not say %q", err, frag)
				}
			}
		})
	}
}

// joined flattens errors.Join trees.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, joined(e)...)
		}
		return out
	}
	return []error{err}
}

// TestHandWrittenCardIsWhatIsServed: a hand-written card's claims are what the handler
// serves: a capability the card leaves out is refused on the wire even though the
// server could serve it, so the card stays true both ways.
func TestHandWrittenCardIsWhatIsServed(t *testing.T) {
	h, g, a := listeners(t)
	doc := lab.V1Card("x", decl{URL: a.url(PathJSONRPC), Binding: jsonrpc, Version: card.V1},
		decl{URL: a.grpc, Binding: grpcB, Version: card.V1}, decl{URL: a.url(PathREST), Binding: httpjson, Version: card.V1})
	doc["capabilities"] = map[string]any{"streaming": false, "pushNotifications": true}
	srv, err := New(Echo{}, WithListeners(h, g), echoInfo, WithCardJSON(mustJSON(t, doc)),
		WithPushNotifications(NewPushConfigStore(nil), push.NewHTTPPushSender(nil)), WithDerivedExtendedCard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	ch := probe.Check(t.Context(), srv.Card())
	got := map[probe.Capability]probe.Served{}
	for _, cr := range ch.Capabilities {
		got[cr.Name] = cr.Verdict
	}
	want := map[probe.Capability]probe.Served{probe.Streaming: probe.CapabilityNotServed, probe.PushNotifications: probe.CapabilityServed,
		probe.ExtendedAgentCard: probe.CapabilityNotServed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("served on the wire (-want +got):\n%s", diff)
	}
	for _, f := range ch.Report(srv.Card()).Findings {
		if f.Severity == card.SeverityError {
			t.Errorf("finding %s: %s", f.Code, f.Message)
		}
	}
}

// refuseMethod is a call interceptor that refuses one a2asrv method with err: what an
// agent's own middleware may do behind a card that claims the capability.
type refuseMethod struct {
	a2asrv.PassthroughCallInterceptor
	method string
	err    error
}

func (r refuseMethod) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if cc.Method() == r.method {
		return ctx, nil, r.err
	}
	return ctx, nil, nil
}

// TestSelfCheckCoversCapabilities: a capability the card declares but the handler
// refuses (behind the server's back, through handler options of one's own) keeps the
// card unpublished; Start's error names the capability and the member claiming it.
func TestSelfCheckCoversCapabilities(t *testing.T) {
	sender := push.NewHTTPPushSender(nil)
	tests := []struct {
		name string
		opts []Option
		want probe.Capability
	}{
		{"streaming refused", []Option{WithHandlerOptions(a2asrv.WithCallInterceptors(refuseMethod{method: "SubscribeToTask", err: a2a.ErrUnsupportedOperation}))},
			probe.Streaming},
		{"streaming switched off", []Option{WithHandlerOptions(a2asrv.WithCapabilityChecks(&a2a.AgentCapabilities{}))}, probe.Streaming},
		{"push refused", []Option{WithPushNotifications(NewPushConfigStore(nil), sender),
			WithHandlerOptions(a2asrv.WithCallInterceptors(refuseMethod{method: "ListTaskPushConfigs", err: a2a.ErrPushNotificationNotSupported}))},
			probe.PushNotifications},
		{"extended card refused", []Option{WithDerivedExtendedCard(),
			WithHandlerOptions(a2asrv.WithCallInterceptors(refuseMethod{method: "GetExtendedAgentCard", err: a2a.ErrExtendedCardNotConfigured}))},
			probe.ExtendedAgentCard},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, append([]Option{WithGRPCAddr("127.0.0.1:0"), WithSelfCheckTimeout(2 * time.Second)}, tt.opts...)...)
			err := srv.Start(t.Context())
			var sc *SelfCheckError
			if !errors.As(err, &sc) {
				t.Fatalf("Start() error = %v, want a *SelfCheckError", err)
			}
			for _, r := range sc.Results {
				if r.Outcome != wire.Served {
					t.Errorf("interface %s: %s, want served (only the capability is refused)", r.Interface, r.Outcome)
				}
			}
			if !strings.Contains(err.Error(), "capability "+string(tt.want)+" (capabilities."+string(tt.want)+") is declared but not_served") {
				t.Errorf("Start() error = %v, want it to name %s", err, tt.want)
			}
			if srv.Ready() {
				t.Error("the card is published")
			}
		})
	}
}

// TestGRPCSubscribeCarriesTheTenant: with a tenant, a real a2a-go gRPC client's
// SubscribeToTask reaches the task (a2a-go v2.4.0's gRPC handler drops the request's
// tenant; grpcTenantSubscribe carries it), on a task that exists and on one that does not.
func TestGRPCSubscribeCarriesTheTenant(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithTenant("acme"))
	var ep *a2a.AgentInterface
	for _, i := range srv.Interfaces() {
		if i.Binding == a2a.TransportProtocolGRPC {
			ep = &a2a.AgentInterface{URL: i.URL, ProtocolBinding: i.Binding, ProtocolVersion: a2a.Version, Tenant: "acme"}
		}
	}
	c, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{ep}, grpcInsecure)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Destroy() })
	for _, err := range c.SubscribeToTask(t.Context(), &a2a.SubscribeToTaskRequest{ID: a2a.NewTaskID(), Tenant: "acme"}) {
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Errorf("SubscribeToTask of an unknown task = %v, want TaskNotFound", err)
		}
		break
	}
	res, err := c.SendMessage(t.Context(), &a2a.SendMessageRequest{Tenant: "acme", Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage = %T, want a task", res)
	}
	for _, err := range c.SubscribeToTask(t.Context(), &a2a.SubscribeToTaskRequest{ID: task.ID, Tenant: "acme"}) {
		// The echo task is completed: the subscription is refused as for a terminal task.
		if !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Errorf("SubscribeToTask of a completed task = %v, want UnsupportedOperation", err)
		}
		break
	}
}
