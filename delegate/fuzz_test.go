package delegate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// FuzzAnswers serves arbitrary HTTP answers on loopback to the delegate client, on every
// HTTP binding and version, unary and streaming: a call never panics or hangs, and
// fails with a *Error whose last attempt has an outcome of the taxonomy.
func FuzzAnswers(f *testing.F) {
	f.Add(200, "application/json", []byte(`{"jsonrpc":"2.0","id":"x","result":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}`))
	f.Add(200, "application/json", []byte(`{"jsonrpc":"2.0","id":"x","result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}`))
	f.Add(200, "application/json", []byte(`{"jsonrpc":"2.0","id":"x","result":null}`))
	f.Add(200, "text/event-stream", []byte("data: {\"jsonrpc\":\"2.0\",\"result\":{\"statusUpdate\":{}}}\n\n"))
	f.Add(200, "text/event-stream", []byte("data: {\"result\":{\"kind\":\"status-update\",\"final\":true}}\n\n"))
	f.Add(404, "application/json", []byte(`{"error":{"code":404,"status":"NOT_FOUND","details":[{"reason":"TASK_NOT_FOUND"}]}}`))
	f.Add(200, "application/json", []byte(`{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[null]}`))
	f.Add(200, "application/json", []byte(`{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{}]}}`))
	f.Add(500, "text/html", []byte("<html>"))
	srv := labtest.NewAnswerer(f)
	var clients []*Client
	for _, b := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
		for _, v := range []string{card.V1, card.V03} {
			c, err := NewFromCard(&card.Card{Shape: card.ShapeV1, Name: "fuzz", Interfaces: []card.Interface{
				{URL: srv.URL + "/a2a", Binding: b, ProtocolVersion: v, Source: card.Supported(0)},
			}})
			if err != nil {
				f.Fatal(err)
			}
			f.Cleanup(func() { _ = c.Close() })
			clients = append(clients, c)
		}
	}
	f.Fuzz(func(t *testing.T, s int, ct string, b []byte) {
		if s < 200 || s > 599 || strings.ContainsAny(ct, "\r\n\x00") || len(b) > 64<<10 {
			t.Skip()
		}
		srv.Set(s, ct, b)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		check := func(op string, c *Client, err error) {
			if err == nil {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("%s on %v hung on %d %q %q", op, c.Candidates()[0], s, ct, b)
			}
			var de *Error
			if !errors.As(err, &de) {
				t.Fatalf("%s on %v: error %v is not a *Error (%d %q %q)", op, c.Candidates()[0], err, s, ct, b)
			}
			if last, ok := de.Last(); !ok || !slices.Contains(wire.Outcomes(), last.Outcome) {
				t.Fatalf("%s on %v: last attempt %+v (%d %q %q)", op, c.Candidates()[0], last, s, ct, b)
			}
		}
		for _, c := range clients {
			_, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: "t"})
			check("GetTask", c, err)
			_, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))})
			check("SendMessage", c, err)
			for _, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))}) {
				if err != nil {
					check("SendStreamingMessage", c, err)
					break
				}
			}
		}
	})
}
