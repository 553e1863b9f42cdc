package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
)

// cardCapabilities reads the capabilities a published card declares (v1.0 members).
func cardCapabilities(t *testing.T, raw []byte) a2a.AgentCapabilities {
	t.Helper()
	var doc struct {
		Capabilities a2a.AgentCapabilities `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Capabilities
}

// servedOnWire asks each v1.0 binding, with a real a2a-go client, for each capability
// with a side-effect-free call on a random task id, and says what answered.
func servedOnWire(t *testing.T, srv *Server) map[a2a.TransportProtocol]a2a.AgentCapabilities {
	t.Helper()
	out := map[a2a.TransportProtocol]a2a.AgentCapabilities{}
	for _, b := range bindings {
		c := clientFor(t, srv, b)
		ctx := t.Context()
		var got a2a.AgentCapabilities
		// a2a-go's JSON-RPC client reads the plain JSON-RPC error a streaming method
		// answers before its first event (firstEvent) as an empty stream: that binding's
		// answer is read from the wire by itself.
		got.Streaming = b == a2a.TransportProtocolJSONRPC && jsonrpcSubscribeNotFound(t, srv)
		for _, err := range c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: a2a.NewTaskID()}) {
			got.Streaming = errors.Is(err, a2a.ErrTaskNotFound)
			break
		}
		_, err := c.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: a2a.NewTaskID()})
		got.PushNotifications = errors.Is(err, a2a.ErrTaskNotFound)
		ext, err := c.GetExtendedAgentCard(ctx, &a2a.GetExtendedAgentCardRequest{})
		got.ExtendedAgentCard = err == nil && ext != nil
		out[b] = got
	}
	return out
}

// jsonrpcSubscribeNotFound posts SubscribeToTask for a random id to the JSON-RPC 1.0
// binding and reports whether it answered TaskNotFound.
func jsonrpcSubscribeNotFound(t *testing.T, srv *Server) bool {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"` + string(a2a.NewTaskID()) + `"}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.LocalBaseURL()+PathJSONRPC, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2a.SvcParamVersion, card.V1)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Error struct{ Code int } `json:"error"`
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&answer) == nil && answer.Error.Code == -32001
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
		{"push store and sender", []Option{WithPushNotifications(NewPushConfigStore(), sender)}, a2a.AgentCapabilities{Streaming: true, PushNotifications: true}},
		{"push store without sender", []Option{WithPushNotifications(store, nil)}, a2a.AgentCapabilities{Streaming: true}},
		{"push sender without store", []Option{WithPushNotifications(nil, sender)}, a2a.AgentCapabilities{Streaming: true}},
		{"derived extended card", []Option{WithDerivedExtendedCard()}, a2a.AgentCapabilities{Streaming: true, ExtendedAgentCard: true}},
		{"extended card replaced", []Option{WithDerivedExtendedCard(), WithExtendedAgentCard(nil)}, a2a.AgentCapabilities{Streaming: true}},
		{"everything", []Option{WithPushNotifications(NewPushConfigStore(), sender), WithExtendedAgentCard(producer), WithDerivedExtendedCard()},
			a2a.AgentCapabilities{Streaming: true, PushNotifications: true, ExtendedAgentCard: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, append([]Option{WithGRPCAddr("127.0.0.1:0")}, tt.opts...)...)
			if diff := cmp.Diff(tt.want, cardCapabilities(t, srv.CardJSON())); diff != "" {
				t.Errorf("card capabilities (-want +got):\n%s", diff)
			}
			for b, got := range servedOnWire(t, srv) {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s serves (-declared +served):\n%s", b, diff)
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
	s := NewPushConfigStore()
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
	s := NewPushConfigStore().(*boundedPushStore)
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
