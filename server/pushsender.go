package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/a2aproject/a2a-go/v2/log"

	"github.com/a2abind/a2abind/addr"
)

// pushSender delivers push notifications as a2a-go's push.HTTPPushSender does (a POST of
// the event as a StreamResponse with the config's token and credentials), with the
// webhook judged by a addr.DialPolicy: by its URL and again at connect time, whatever
// its name resolves to. a2a-go's own guard judges IPv4-mapped forms only, so NAT64,
// 6to4 and the other IPv6 forms of loopback and private addresses, and metadata
// services outside link-local, passed it. A redirect is not followed: the webhook's
// answer is its own, and its credentials go nowhere else.
type pushSender struct {
	policy *addr.DialPolicy
	client *http.Client
}

// NewPushSender returns the push.Sender of serve --push: webhooks dialled through
// policy (nil: the default policy; serve passes policy.PublicOnly() unless
// --push-private), each delivery bounded by timeout. A failed delivery is logged and
// does not fail the task, as with a2a-go's sender.
func NewPushSender(policy *addr.DialPolicy, timeout time.Duration) push.Sender {
	return &pushSender{policy: policy, client: &http.Client{
		Transport:     addr.Conn{Dial: policy}.Transport(),
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// checkWebhook refuses a webhook URL that is not an absolute http(s) URL or that policy
// refuses by the URL alone (an IP literal, a metadata name, user:password@).
func checkWebhook(policy *addr.DialPolicy, url string) error {
	a, err := addr.ParseAddress(url, a2a.TransportProtocolJSONRPC)
	if err != nil {
		return err
	}
	return policy.Check(a)
}

// SendPush posts event to the config's webhook; a failure is logged, not returned.
func (s *pushSender) SendPush(ctx context.Context, config *a2a.PushConfig, event a2a.Event) error {
	if err := s.send(ctx, config, event); err != nil {
		log.Error(ctx, "push sending failed", err)
	}
	return nil
}

func (s *pushSender) send(ctx context.Context, config *a2a.PushConfig, event a2a.Event) error {
	if err := checkWebhook(s.policy, config.URL); err != nil {
		return err
	}
	body, err := json.Marshal(a2a.StreamResponse{Event: event})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, config.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if config.Token != "" {
		req.Header.Set("A2A-Notification-Token", config.Token)
	}
	if auth := config.Auth; auth != nil && auth.Credentials != "" {
		switch strings.ToLower(auth.Scheme) {
		case "bearer":
			req.Header.Set("Authorization", "Bearer "+auth.Credentials)
		case "basic":
			req.Header.Set("Authorization", "Basic "+auth.Credentials)
		}
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return fmt.Errorf("push notification endpoint %s answered %s", config.URL, resp.Status)
	}
	return nil
}
