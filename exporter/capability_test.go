package exporter_test

import (
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// TestProbe_CapabilityUp: a2abind_capability_up{capability} is 1 for a declared
// capability served on every binding, 0 for a declared one that is not (each lab lie),
// and absent for one the card does not declare; each lie counts once under
// capability-not-served and fails probe_success, and the new finding codes are always
// present.
func TestProbe_CapabilityUp(t *testing.T) {
	t.Parallel()
	all := []string{string(probe.Streaming), string(probe.PushNotifications), string(probe.ExtendedAgentCard)}
	tests := []struct {
		name    string
		agent   []lab.Option
		up      map[string]float64 // every series expected; the others absent
		success float64
	}{
		{"serves everything it declares", lab.Capable(), map[string]float64{"streaming": 1, "pushNotifications": 1, "extendedAgentCard": 1}, 1},
		{"declares streaming only", lab.Healthy(), map[string]float64{"streaming": 1}, 1},
		{"streaming refused", lab.StreamingRefused(), map[string]float64{"streaming": 0}, 0},
		{"push without a store", lab.PushWithoutStore(), map[string]float64{"streaming": 1, "pushNotifications": 0}, 0},
		{"extended card missing", lab.ExtendedCardMissing(), map[string]float64{"streaming": 1, "extendedAgentCard": 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.agent...)
			_, _, f := scrape(t, start(t, nil), probePath(a.BaseURL))
			mustValue(t, f, "probe_success", nil, tt.success)
			lies := 0.0
			for _, k := range all {
				want, declared := tt.up[k]
				got, ok := value(f, "a2abind_capability_up", map[string]string{"capability": k})
				switch {
				case declared && (!ok || got != want):
					t.Errorf("a2abind_capability_up{capability=%q} = %v (present %v), want %v", k, got, ok, want)
				case !declared && ok:
					t.Errorf("a2abind_capability_up{capability=%q} = %v, want no series for a capability not declared", k, got)
				}
				if declared && want == 0 {
					lies++
				}
			}
			mustValue(t, f, "a2abind_findings_by_code", map[string]string{"code": card.CodeCapabilityNotServed}, lies)
			for _, code := range []string{card.CodeAuthNotEquivalent, card.CodeErrorMapping} {
				if _, ok := value(f, "a2abind_findings_by_code", map[string]string{"code": code}); !ok {
					t.Errorf("no a2abind_findings_by_code{code=%q} series", code)
				}
			}
		})
	}
}

// TestProbe_AuthNotEquivalentCounted: an agent with one binding open beside protected
// ones counts one auth-not-equivalent finding; its streaming claim, asked without
// credentials, is answered "credentials needed" on the protected bindings: no verdict,
// so no a2abind_capability_up series (an alert on 0 is not a module without credentials).
func TestProbe_AuthNotEquivalentCounted(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.OpenBinding("s3cret")...)
	_, _, f := scrape(t, start(t, nil), probePath(a.BaseURL))
	mustValue(t, f, "a2abind_findings_by_code", map[string]string{"code": card.CodeAuthNotEquivalent}, 1)
	mustValue(t, f, "probe_success", nil, 0)
	if v, ok := value(f, "a2abind_capability_up", map[string]string{"capability": string(probe.Streaming)}); ok {
		t.Errorf("a2abind_capability_up{capability=\"streaming\"} = %v, want no series when the calls cannot tell", v)
	}
}
