package server

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
)

// TestPushSenderDialsThroughThePolicy (issue 43): the push sender judges a webhook by
// its URL and at connect time, whatever a name resolves to. With the PublicOnly policy
// of serve --push, [::ffff:127.0.0.1] (which reaches loopback on Linux), a NAT64 form of
// loopback and "localhost" get no connection; the default policy (--push-private)
// delivers to the same listener, token and all. A redirect is not followed.
func TestPushSenderDialsThroughThePolicy(t *testing.T) {
	var hits, elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	var token atomic.Value
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		token.Store(r.Header.Get("A2A-Notification-Token"))
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, other.URL, http.StatusTemporaryRedirect)
		}
	}))
	defer hook.Close()
	_, port, _ := net.SplitHostPort(hook.Listener.Addr().String())
	event := a2a.NewStatusUpdateEvent(&a2a.Task{ID: "t", ContextID: "c"}, a2a.TaskStateWorking, nil)
	public := NewPushSender((*addr.DialPolicy)(nil).PublicOnly(), 5*time.Second).(*pushSender)
	for _, host := range []string{"[::ffff:127.0.0.1]", "[64:ff9b::7f00:1]", "localhost", "127.0.0.1"} {
		err := public.send(t.Context(), &a2a.PushConfig{URL: "http://" + host + ":" + port + "/hook"}, event)
		if !errors.Is(err, addr.ErrRefusedAddress) {
			t.Errorf("public-only push to %s: %v, want a refusal", host, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the webhook got %d requests from refused pushes", n)
	}
	private := NewPushSender(nil, 5*time.Second).(*pushSender)
	if err := private.send(t.Context(), &a2a.PushConfig{URL: "http://[::ffff:127.0.0.1]:" + port + "/hook", Token: "tok"}, event); err != nil {
		t.Fatalf("default-policy push to [::ffff:127.0.0.1]: %v", err)
	}
	if hits.Load() != 1 || token.Load() != "tok" {
		t.Errorf("webhook got %d requests, token %v; want 1 with the token", hits.Load(), token.Load())
	}
	if err := private.send(t.Context(), &a2a.PushConfig{URL: hook.URL + "/moved", Token: "tok"}, event); err == nil {
		t.Error("a redirecting webhook counted as delivered")
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the push followed a redirect (%d requests elsewhere)", n)
	}
}
