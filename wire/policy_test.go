package wire_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// TestPolicy_Decide is the fallback table: per outcome, whether a message, a read and a
// message the caller allows to resend move on to the next interface.
func TestPolicy_Decide(t *testing.T) {
	t.Parallel()
	message, read, resend := wire.Policy{}, wire.Policy{Idempotent: true}, wire.Policy{Resend: true}
	for _, o := range append(wire.Outcomes(), wire.Outcome("no_interface")) {
		wantNext := !o.ReachedHandler() && o != wire.AuthRequired
		if got := message.Decide(o, false).Next; got != wantNext {
			t.Errorf("message after %s: next = %v, want %v", o, got, wantNext)
		}
		wantRead := wantNext || o == wire.Ambiguous
		if got := read.Decide(o, false).Next; got != wantRead {
			t.Errorf("read after %s: next = %v, want %v", o, got, wantRead)
		}
		if got := resend.Decide(o, false).Next; got != wantRead {
			t.Errorf("resendable message after %s: next = %v, want %v", o, got, wantRead)
		}
	}
	if !message.Decide(wire.AuthRequired, true).Next {
		t.Errorf("auth_required where credentials were withheld: want next")
	}
}

// TestPolicy_Walk walks a list with recorded outcomes: it stops at the first answer, at
// the first stop, at a final attempt, or runs out.
func TestPolicy_Walk(t *testing.T) {
	t.Parallel()
	ifaces := []card.Interface{{URL: "a"}, {URL: "b"}, {URL: "c"}}
	tests := []struct {
		name     string
		outcomes []wire.Outcome
		final    int // index of the final attempt, -1 for none
		want     wire.Walked
		tried    int
	}{
		{"first answers", []wire.Outcome{wire.Served}, -1, wire.Walked{Last: 0, Step: wire.Step{Why: "answered"}}, 1},
		{"falls back twice", []wire.Outcome{wire.Refused, wire.HandlerMissing, wire.Served}, -1, wire.Walked{Last: 2, Step: wire.Step{Why: "answered"}}, 3},
		{"stops on ambiguous", []wire.Outcome{wire.NotFound, wire.Ambiguous}, -1,
			wire.Walked{Last: 1, Step: wire.Step{Why: "not resent to another interface (it may have been delivered)"}}, 2},
		{"exhausted", []wire.Outcome{wire.Refused, wire.Refused, wire.WrongBinding}, -1, wire.Walked{Last: 2, Step: wire.Step{Next: true}, Exhausted: true}, 3},
		{"final attempt", []wire.Outcome{wire.Refused, wire.Refused}, 1, wire.Walked{Last: 1, Step: wire.Step{Next: true}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			got := wire.Policy{}.Walk(ifaces, func(card.Interface) wire.Tried {
				tr := wire.Tried{Outcome: tt.outcomes[n], Final: n == tt.final}
				n++
				return tr
			})
			if diff := cmp.Diff(tt.want, got); diff != "" || n != tt.tried {
				t.Errorf("Walk() (-want +got):\n%s\ntried %d, want %d", diff, n, tt.tried)
			}
		})
	}
	if got := (wire.Policy{}).Walk(nil, nil); !got.Exhausted || got.Last != -1 {
		t.Errorf("Walk(nil) = %+v, want exhausted with Last -1", got)
	}
}
