package probe_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// TestPolicy_Decide is the fallback table: per outcome, whether a message, a read and a
// message the caller allows to resend move on to the next interface.
func TestPolicy_Decide(t *testing.T) {
	t.Parallel()
	message, read, resend := probe.Policy{}, probe.Policy{Idempotent: true}, probe.Policy{Resend: true}
	for _, o := range append(probe.Outcomes(), probe.NoInterface) {
		wantNext := !o.ReachedHandler() && o != probe.AuthRequired
		if got := message.Decide(o, false).Next; got != wantNext {
			t.Errorf("message after %s: next = %v, want %v", o, got, wantNext)
		}
		wantRead := wantNext || o == probe.Ambiguous
		if got := read.Decide(o, false).Next; got != wantRead {
			t.Errorf("read after %s: next = %v, want %v", o, got, wantRead)
		}
		if got := resend.Decide(o, false).Next; got != wantRead {
			t.Errorf("resendable message after %s: next = %v, want %v", o, got, wantRead)
		}
	}
	if !message.Decide(probe.AuthRequired, true).Next {
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
		outcomes []probe.Outcome
		final    int // index of the final attempt, -1 for none
		want     probe.Walked
		tried    int
	}{
		{"first answers", []probe.Outcome{probe.Served}, -1, probe.Walked{Last: 0, Step: probe.Step{Why: "answered"}}, 1},
		{"falls back twice", []probe.Outcome{probe.Refused, probe.HandlerMissing, probe.Served}, -1, probe.Walked{Last: 2, Step: probe.Step{Why: "answered"}}, 3},
		{"stops on ambiguous", []probe.Outcome{probe.NotFound, probe.Ambiguous}, -1,
			probe.Walked{Last: 1, Step: probe.Step{Why: "not resent to another interface (it may have been delivered)"}}, 2},
		{"exhausted", []probe.Outcome{probe.Refused, probe.Refused, probe.WrongBinding}, -1, probe.Walked{Last: 2, Step: probe.Step{Next: true}, Exhausted: true}, 3},
		{"final attempt", []probe.Outcome{probe.Refused, probe.Refused}, 1, probe.Walked{Last: 1, Step: probe.Step{Next: true}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			got := probe.Policy{}.Walk(ifaces, func(card.Interface) probe.Tried {
				tr := probe.Tried{Outcome: tt.outcomes[n], Final: n == tt.final}
				n++
				return tr
			})
			if diff := cmp.Diff(tt.want, got); diff != "" || n != tt.tried {
				t.Errorf("Walk() (-want +got):\n%s\ntried %d, want %d", diff, n, tt.tried)
			}
		})
	}
	if got := (probe.Policy{}).Walk(nil, nil); !got.Exhausted || got.Last != -1 {
		t.Errorf("Walk(nil) = %+v, want exhausted with Last -1", got)
	}
}
