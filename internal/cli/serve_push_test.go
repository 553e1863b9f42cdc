package cli

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2abind/a2abind/card"
)

// TestServeCmd_PushRefusesHostileWebhooks (issue 43): serve --push refuses, over real
// JSON-RPC, a webhook naming loopback, private or metadata addresses in any form that
// embeds an IPv4 address (IPv4-mapped, NAT64, local-use NAT64, SIIT, IPv4-compatible,
// 6to4, Teredo), by CreateTaskPushNotificationConfig and by SendMessage's push config
// alike, with InvalidParams; a public NAT64 form is registered. Nothing reaches the
// loopback webhook, which [::ffff:127.0.0.1] would really reach.
func TestServeCmd_PushRefusesHostileWebhooks(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer hook.Close()
	_, port, _ := net.SplitHostPort(hook.Listener.Addr().String())
	cardURL, _, stop := serveInBackground(t, "--http", "127.0.0.1:0", "--push")
	defer stop()
	c, err := card.Load(t.Context(), cardURL)
	if err != nil {
		t.Fatal(err)
	}
	var ep *a2a.AgentInterface
	for _, i := range c.Interfaces {
		if i.Binding == a2a.TransportProtocolJSONRPC && i.ProtocolVersion == card.V1 {
			ep = &a2a.AgentInterface{URL: i.URL, ProtocolBinding: i.Binding, ProtocolVersion: a2a.Version}
		}
	}
	if ep == nil {
		t.Fatalf("no JSON-RPC 1.0 interface in %+v", c.Interfaces)
	}
	client, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{ep})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Destroy() }()
	res, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage answered %T, want a task", res)
	}
	for _, host := range []string{
		"[::ffff:127.0.0.1]", "127.0.0.1", "[::1]", "10.0.0.1", "168.63.129.16", "100.100.100.200", "[fd00:ec2::254]",
		"[64:ff9b::7f00:1]", "[64:ff9b::a9fe:a9fe]", "[64:ff9b::a83f:8110]", "[64:ff9b:1::a9fe:a9fe]",
		"[::ffff:0:7f00:1]", "[::7f00:1]", "[2002:7f00:1::1]", "[2002:a9fe:a9fe::1]",
		"[2001:0:7f00:1:8000:0:f7f7:f7f7]", "[2001:0:808:808:8000:0:5601:5601]",
	} {
		url := "http://" + host + ":" + port + "/hook"
		if _, err := client.CreateTaskPushConfig(t.Context(), &a2a.PushConfig{TaskID: task.ID, URL: url}); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("CreateTaskPushNotificationConfig(%s) = %v, want InvalidParams", url, err)
		}
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))
		req := &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: url}}}
		if _, err := client.SendMessage(t.Context(), req); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("SendMessage with push config %s = %v, want InvalidParams", url, err)
		}
	}
	if _, err := client.CreateTaskPushConfig(t.Context(), &a2a.PushConfig{TaskID: task.ID, URL: "http://[64:ff9b::808:808]:" + port + "/hook"}); err != nil {
		t.Errorf("a NAT64 form of 8.8.8.8 was refused: %v", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback webhook got %d requests", n)
	}
}
