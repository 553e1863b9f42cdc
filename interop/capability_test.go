package interop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
)

// capabilityFindings are issue 21's finding codes.
var capabilityFindings = map[string]bool{
	card.CodeCapabilityNotServed: true, card.CodeCapabilityNotDeclared: true,
	card.CodeAuthNotEquivalent: true, card.CodeErrorMapping: true,
}

// checkJS loads the card of the JS server of a mode and checks it. The check has a
// result per capability, so that the callers' loops over them cannot pass empty.
func checkJS(t *testing.T, mode string) (*card.Card, probe.CardCheck) {
	t.Helper()
	s := startJSServer(t, mode)
	ctx, cancel := context.WithTimeout(context.Background(), probeBudget)
	defer cancel()
	c, err := card.Load(ctx, s.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	ch := probe.Check(ctx, c, probe.WithTimeout(5*time.Second))
	if len(ch.Capabilities) != len(probe.AllCapabilities()) {
		t.Fatalf("%d capability results, want one per capability (%d)", len(ch.Capabilities), len(probe.AllCapabilities()))
	}
	return c, ch
}

// TestCapabilitiesOfJSAgents: a2a-js 1.3.0 agents are judged by what they serve. The
// capable agent (streaming, its in-memory push store, an extended card provider) is
// served on all three bindings and gets none of the capability findings; the agent
// whose handler holds the card with every capability off while publishing them is
// refused on all three bindings, one capability-not-served error per capability.
func TestCapabilitiesOfJSAgents(t *testing.T) {
	t.Parallel()
	needNode(t)
	for _, tt := range []struct {
		mode  string
		want  probe.Served
		codes []string
	}{
		{"capable", probe.CapabilityServed, nil},
		{"capability-lies", probe.CapabilityNotServed, []string{card.CodeCapabilityNotServed, card.CodeCapabilityNotServed, card.CodeCapabilityNotServed}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			c, ch := checkJS(t, tt.mode)
			for _, cr := range ch.Capabilities {
				if !cr.Declared() || cr.Verdict != tt.want || len(cr.Calls) != 3 {
					t.Errorf("%s: declared %v, verdict %s on %d bindings; want declared, %s on 3", cr.Name, cr.Declared(), cr.Verdict, len(cr.Calls), tt.want)
				}
				for _, call := range cr.Calls {
					if call.Outcome != tt.want {
						t.Errorf("%s on %s: %s (%s)", cr.Name, call.Interface, call.Outcome, call.Detail)
					}
				}
			}
			var codes []string
			for _, f := range ch.Report(c).Findings {
				if capabilityFindings[f.Code] {
					codes = append(codes, f.Code)
					if f.Code == card.CodeCapabilityNotServed && (!strings.Contains(f.Message, "GRPC") || !strings.Contains(f.Message, "HTTP+JSON") || !strings.Contains(f.Message, "JSONRPC")) {
						t.Errorf("finding does not name every binding: %s", f.Message)
					}
				}
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("capability findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCapabilitiesOfA2AGoCLI: a2a-go v2.4.0's own `a2a serve`. --echo declares
// streaming and serves it. --exec declares streaming in the card it builds while its
// handler's capability checks turn streaming on only with --chunk: without --chunk
// SubscribeToTask answers UnsupportedOperation, and probe says capability-not-served
// (exit 1). The probe sends no message: the command --exec wraps never runs.
func TestCapabilitiesOfA2AGoCLI(t *testing.T) {
	t.Parallel()
	releases := a2aGoReleases(t)
	release := releases[len(releases)-1] // the module's own, v2.4.0
	bin := buildA2AGoCLI(t, release)
	ran := filepath.Join(t.TempDir(), "ran")
	exec := "touch " + ran
	for _, tt := range []struct {
		name    string
		args    []string
		verdict probe.Served
		errs    []string
	}{
		{"echo", []string{"--echo"}, probe.CapabilityServed, nil},
		{"exec", []string{"--exec", exec}, probe.CapabilityNotServed, []string{card.CodeCapabilityNotServed}},
		{"exec --chunk", []string{"--exec", exec, "--chunk", "\n"}, probe.CapabilityServed, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := startA2AGoServe(t, bin, tt.args...)
			out, code := runA2abind(t, "probe", "-o", "json", "--timeout", "20s", base)
			var p struct {
				Findings []struct {
					Code, Severity, Message string
				}
				Capabilities []struct {
					Name       string
					Declared   bool
					Verdict    probe.Served
					Interfaces []struct{ Outcome probe.Served }
				}
			}
			if err := json.Unmarshal(out, &p); err != nil {
				t.Fatalf("probe -o json: %v\n%s", err, out)
			}
			if len(p.Capabilities) != 3 || p.Capabilities[0].Name != string(probe.Streaming) {
				t.Fatalf("capabilities %+v\n%s", p.Capabilities, out)
			}
			if s := p.Capabilities[0]; !s.Declared || s.Verdict != tt.verdict || len(s.Interfaces) != 1 {
				t.Errorf("streaming: %+v, want declared and %s on the one interface\n%s", s, tt.verdict, out)
			}
			var errs []string
			for _, f := range p.Findings {
				if capabilityFindings[f.Code] && f.Severity == string(card.SeverityError) {
					errs = append(errs, f.Code)
				}
			}
			if diff := cmp.Diff(tt.errs, errs); diff != "" {
				t.Errorf("capability errors (-want +got):\n%s\n%s", diff, out)
			}
			if tt.errs != nil && code != 1 {
				t.Errorf("probe exit %d, want 1", code)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Error("the wrapped command ran: a probe sent a message")
			}
		})
	}
}

// TestCapabilitiesOfJS03Agent: @a2a-js/sdk 0.3.14 answers a resubscribe of an unknown
// task, and every refusal, with JSON-RPC -32603 (InternalError) and HTTP+JSON 500: the
// answers cannot tell, so streaming (declared) is unknown and no capability finding is
// made from them (the text of an error message is never evidence).
func TestCapabilitiesOfJS03Agent(t *testing.T) {
	t.Parallel()
	c, ch := checkJS(t, modeV03Server)
	for _, cr := range ch.Capabilities {
		if cr.Verdict != probe.CapabilityUnknown || len(cr.Calls) == 0 {
			t.Errorf("%s: %s on %d bindings, want unknown", cr.Name, cr.Verdict, len(cr.Calls))
		}
		if cr.Name == probe.Streaming && !cr.Declared() {
			t.Error("streaming not declared")
		}
	}
	for _, f := range ch.Report(c).Findings {
		if f.Code == card.CodeCapabilityNotServed || f.Code == card.CodeCapabilityNotDeclared {
			t.Errorf("%s from answers that cannot tell: %s", f.Code, f.Message)
		}
	}
}
