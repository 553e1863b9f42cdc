package wire_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// TestPolicy_Decide is the fallback table: per outcome and weight, whether a message, a
// read and a message the caller allows to resend move on to the next interface. A
// "never reached" outcome moves a message on only with proof; one that needs
// confirmation stops it when no lookup confirmed it.
func TestPolicy_Decide(t *testing.T) {
	t.Parallel()
	message, read, resend := wire.Policy{}, wire.Policy{Idempotent: true}, wire.Policy{Resend: true}
	for _, o := range append(wire.Outcomes(), wire.NoInterface) {
		for _, w := range []wire.Weight{wire.Proves, wire.NeedsConfirmation, ""} {
			tr := wire.Tried{Outcome: o, Weight: w}
			wantNext := !o.ReachedHandler() && o != wire.AuthRequired && w == wire.Proves
			if got := message.Decide(tr).Next; got != wantNext {
				t.Errorf("message after %s (%q): next = %v, want %v", o, w, got, wantNext)
			}
			wantRead := !o.ReachedHandler() && o != wire.AuthRequired || o == wire.Ambiguous
			if got := read.Decide(tr).Next; got != wantRead {
				t.Errorf("read after %s (%q): next = %v, want %v", o, w, got, wantRead)
			}
			if got := resend.Decide(tr).Next; got != wantRead {
				t.Errorf("resendable message after %s (%q): next = %v, want %v", o, w, got, wantRead)
			}
		}
	}
	if !message.Decide(wire.Tried{Outcome: wire.AuthRequired, Withheld: true, Weight: wire.Proves}).Next {
		t.Errorf("auth_required where credentials were withheld, confirmed: want next")
	}
	if message.Decide(wire.Tried{Outcome: wire.AuthRequired, Withheld: true, Weight: wire.NeedsConfirmation}).Next {
		t.Errorf("auth_required where credentials were withheld, unconfirmed: want a stop")
	}
}

// TestPolicy_WalkConfirms: an answer that needs confirmation moves a message on only
// when the lookup on the same interface gets the same outcome; otherwise the attempt
// becomes ambiguous and the message stops there. Then (issue 43) the message goes only
// to an interface whose lookup a handler answers (served), passing unsent the ones
// whose lookup is not; when there is none, the first answer may have been relayed by a
// handler that ran: ambiguous. Proof needs no lookup, and a read never waits for one.
func TestPolicy_WalkConfirms(t *testing.T) {
	t.Parallel()
	ifaces := []card.Interface{{URL: "a"}, {URL: "b"}, {URL: "c"}}
	vm := wire.Tried{Outcome: wire.VersionMismatch, Weight: wire.NeedsConfirmation}
	nf := wire.Tried{Outcome: wire.NotFound, Weight: wire.NeedsConfirmation}
	tests := []struct {
		name    string
		pol     wire.Policy
		first   wire.Tried
		lookup  map[string]wire.Outcome // by URL
		lookups int
		want    []wire.Outcome // the outcomes Decided saw
	}{
		{"relayed VersionNotSupported", wire.Policy{}, vm, map[string]wire.Outcome{"a": wire.Served}, 1, []wire.Outcome{wire.Ambiguous}},
		{"confirmed VersionNotSupported", wire.Policy{}, vm, map[string]wire.Outcome{"a": wire.VersionMismatch, "b": wire.Served}, 2,
			[]wire.Outcome{wire.VersionMismatch, wire.Served}},
		{"the same answer on every lookup", wire.Policy{}, vm, map[string]wire.Outcome{"a": wire.VersionMismatch, "b": wire.VersionMismatch, "c": wire.VersionMismatch}, 3,
			[]wire.Outcome{wire.Ambiguous}},
		{"a relay's A2A error is no handler's answer", wire.Policy{}, vm, map[string]wire.Outcome{"a": wire.VersionMismatch, "b": wire.AgentError, "c": wire.Refused}, 3,
			[]wire.Outcome{wire.Ambiguous}},
		{"wrong path, then one unsent, then served", wire.Policy{}, nf, map[string]wire.Outcome{"a": wire.NotFound, "b": wire.NotFound, "c": wire.Served}, 3,
			[]wire.Outcome{wire.NotFound, wire.NotFound, wire.Served}},
		{"404 then a lookup refused", wire.Policy{}, nf, map[string]wire.Outcome{"a": wire.Refused}, 1, []wire.Outcome{wire.Ambiguous}},
		{"unknown service is proof", wire.Policy{}, wire.Tried{Outcome: wire.HandlerMissing, Weight: wire.Proves}, nil, 0, []wire.Outcome{wire.HandlerMissing, wire.Served}},
		{"a read needs no lookup", wire.Policy{Idempotent: true}, nf, nil, 0, []wire.Outcome{wire.NotFound, wire.Served}},
		{"own credentials refused: no lookup", wire.Policy{}, wire.Tried{Outcome: wire.AuthRequired, Weight: wire.NeedsConfirmation}, nil, 0, []wire.Outcome{wire.AuthRequired}},
		{"withheld credentials confirmed", wire.Policy{}, wire.Tried{Outcome: wire.AuthRequired, Weight: wire.NeedsConfirmation, Withheld: true},
			map[string]wire.Outcome{"a": wire.AuthRequired, "b": wire.Served}, 2, []wire.Outcome{wire.AuthRequired, wire.Served}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookups := 0
			var decided []wire.Outcome
			var unsent []string
			wire.Policy(tt.pol).Walk(ifaces, wire.Walker{
				Try: func(i card.Interface) wire.Tried {
					if i.URL == "a" {
						return tt.first
					}
					if slices.Contains(unsent, i.URL) {
						t.Errorf("the message went to %s, passed unsent", i.URL)
					}
					return wire.Tried{Outcome: wire.Served, Weight: wire.HandlerAnswered}
				},
				Lookup: func(i card.Interface) wire.Outcome { lookups++; return tt.lookup[i.URL] },
				Decided: func(i card.Interface, tr wire.Tried, _ wire.Step) {
					decided = append(decided, tr.Outcome)
					if tr.Unsent {
						unsent = append(unsent, i.URL)
					}
				},
			})
			if diff := cmp.Diff(tt.want, decided); diff != "" || lookups != tt.lookups {
				t.Errorf("decided (-want +got):\n%s\nlookups %d, want %d", diff, lookups, tt.lookups)
			}
		})
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
			decided := 0
			got := wire.Policy{}.Walk(ifaces, wire.Walker{Try: func(card.Interface) wire.Tried {
				tr := wire.Tried{Outcome: tt.outcomes[n], Weight: wire.Proves, Final: n == tt.final}
				n++
				return tr
			}, Decided: func(card.Interface, wire.Tried, wire.Step) { decided++ }})
			got.Tried = wire.Tried{}
			if decided != n {
				t.Errorf("Decided ran %d times for %d attempts", decided, n)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || n != tt.tried {
				t.Errorf("Walk() (-want +got):\n%s\ntried %d, want %d", diff, n, tt.tried)
			}
		})
	}
	if got := (wire.Policy{}).Walk(nil, wire.Walker{}); !got.Exhausted || got.Last != -1 {
		t.Errorf("Walk(nil) = %+v, want exhausted with Last -1", got)
	}
}
