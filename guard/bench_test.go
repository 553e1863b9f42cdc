package guard_test

import (
	"context"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// BenchmarkSendMessage measures JSON-RPC SendMessage with one warm a2a-go client, sent
// to the agent directly (the baseline) and through the guard's proxy; compare the two in
// one run (bench.sh style ratio: through-guard / direct).
func BenchmarkSendMessage(b *testing.B) {
	a := labtest.Start(b, lab.Healthy()...)
	g := startGuardB(b, a.BaseURL)
	for _, tt := range []struct{ name, base string }{{"direct", a.BaseURL}, {"through-guard", g.URL()}} {
		b.Run(tt.name, func(b *testing.B) {
			ctx := context.Background()
			client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{{
				URL: tt.base + lab.PathJSONRPC, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.ProtocolVersion(card.V1)}})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = client.Destroy() }()
			req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("bench"))}
			b.ResetTimer()
			for b.Loop() {
				if _, err := client.SendMessage(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
