package delegate

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// benchBound sends one message through a fresh client for c (every interface refused).
func benchBound(b *testing.B, c *card.Card) {
	b.ReportAllocs()
	for b.Loop() {
		client, err := NewFromCard(c, WithPlaintextGRPC())
		if err != nil {
			b.Fatal(err)
		}
		_, _ = client.SendMessage(b.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))})
		_ = client.Close()
	}
}

// BenchmarkBoundHugeCard: a 13,500-interface card (about 1 MiB) costs the bound's 32
// attempts; compare with BenchmarkBoundCard32, the same 32 refused attempts on a card
// that declares only them. The ratio is the cost of the other 13,468 entries.
func BenchmarkBoundHugeCard(b *testing.B) { benchBound(b, hugeCard(b, 13500)) }

// BenchmarkBoundCard32 is the baseline of BenchmarkBoundHugeCard.
func BenchmarkBoundCard32(b *testing.B) { benchBound(b, hugeCard(b, addr.DefaultMaxInterfaces)) }
