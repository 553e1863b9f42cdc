package probe_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
)

// checkLab loads the card of a lab agent started with opts and checks it.
func checkLab(t *testing.T, opts []lab.Option, popts ...probe.Option) (*lab.Agent, *card.Card, probe.CardCheck, probe.Report) {
	t.Helper()
	a := labtest.Start(t, opts...)
	c, err := card.Load(context.Background(), a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	ch := probe.Check(context.Background(), c, append([]probe.Option{probe.WithTimeout(5 * time.Second)}, popts...)...)
	return a, c, ch, ch.Report(c)
}

// newCodes are the capability findings of a report, "code:severity", in order.
func newCodes(rep probe.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if capabilityCodes[f.Code] {
			out = append(out, f.Code+":"+string(f.Severity))
		}
	}
	return out
}

func verdicts(ch probe.CardCheck) map[probe.Capability]probe.Served {
	out := map[probe.Capability]probe.Served{}
	for _, cr := range ch.Capabilities {
		out[cr.Name] = cr.Verdict
	}
	return out
}

// TestCapabilityLies: every lab agent lying about a capability is found on the wire by
// Check, on every binding, with the finding naming the capability and the interfaces;
// the agent serving everything it declares gets none of the capability findings.
func TestCapabilityLies(t *testing.T) {
	noStreaming := lab.WithHandlerOptions(a2asrv.WithCapabilityChecks(&a2a.AgentCapabilities{}))
	for _, tt := range []struct {
		name     string
		opts     []lab.Option
		want     map[probe.Capability]probe.Served
		codes    []string
		mentions []string // in the capability-not-served message
	}{
		{"streaming refused", lab.StreamingRefused(),
			map[probe.Capability]probe.Served{probe.Streaming: "not_served", probe.PushNotifications: "not_served", probe.ExtendedAgentCard: "not_served"},
			[]string{"capability-not-served:error"}, []string{"capabilities.streaming", "JSONRPC 1.0", "GRPC 1.0", "HTTP+JSON 1.0", "UNSUPPORTED_OPERATION"}},
		{"streaming refused, v0.3", append(lab.HealthyV03(), noStreaming),
			map[probe.Capability]probe.Served{probe.Streaming: "not_served", probe.PushNotifications: "not_served", probe.ExtendedAgentCard: "not_served"},
			[]string{"capability-not-served:error"}, []string{"capabilities.streaming", "JSONRPC 0.3", "GRPC 0.3", "HTTP+JSON 0.3"}},
		{"push without a store", lab.PushWithoutStore(),
			map[probe.Capability]probe.Served{probe.Streaming: "served", probe.PushNotifications: "not_served", probe.ExtendedAgentCard: "not_served"},
			[]string{"capability-not-served:error"}, []string{"capabilities.pushNotifications", "PUSH_NOTIFICATION_NOT_SUPPORTED", "GRPC 1.0"}},
		{"extended card missing", lab.ExtendedCardMissing(),
			map[probe.Capability]probe.Served{probe.Streaming: "served", probe.PushNotifications: "not_served", probe.ExtendedAgentCard: "not_served"},
			[]string{"capability-not-served:error"}, []string{"capabilities.extendedAgentCard", "EXTENDED_AGENT_CARD_NOT_CONFIGURED", "HTTP+JSON 1.0"}},
		{"capable", lab.Capable(),
			map[probe.Capability]probe.Served{probe.Streaming: "served", probe.PushNotifications: "served", probe.ExtendedAgentCard: "served"},
			nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, ch, rep := checkLab(t, tt.opts)
			if diff := cmp.Diff(tt.want, verdicts(ch)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.codes, newCodes(rep)); diff != "" {
				t.Errorf("capability findings (-want +got):\n%s", diff)
			}
			for _, f := range rep.Findings {
				if f.Code != card.CodeCapabilityNotServed {
					continue
				}
				for _, m := range tt.mentions {
					if !strings.Contains(f.Message, m) {
						t.Errorf("finding %q does not mention %q", f.Message, m)
					}
				}
			}
			if len(tt.codes) > 0 && rep.OK() {
				t.Error("a lie left the report ok")
			}
			for _, cr := range ch.Capabilities {
				if len(cr.Calls) != 3 {
					t.Errorf("%s asked on %d bindings, want 3", cr.Name, len(cr.Calls))
				}
			}
		})
	}
}

// TestCapabilityClientImpact: the clients that pick a binding where a declared
// capability is refused are named as failing it.
func TestCapabilityClientImpact(t *testing.T) {
	_, _, _, rep := checkLab(t, lab.PushWithoutStore())
	for _, ci := range rep.Clients {
		if ci.Interface == nil {
			continue
		}
		if !slices.Contains(ci.CapabilitiesFailing, probe.PushNotifications) || slices.Contains(ci.CapabilitiesFailing, probe.Streaming) {
			t.Errorf("%s: capabilities failing %v, want pushNotifications alone", ci.Profile, ci.CapabilitiesFailing)
		}
	}
}

// TestAuthNotEquivalent: one binding answering without credentials beside protected
// ones is auth-not-equivalent, naming both sides; an agent protecting every binding,
// and the same open agent probed with credentials (which prove nothing about the open
// binding) are not.
func TestAuthNotEquivalent(t *testing.T) {
	const token = "lab-token"
	_, _, ch, rep := checkLab(t, lab.OpenBinding(token))
	if diff := cmp.Diff([]string{"auth-not-equivalent:error"}, newCodes(rep)); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	for _, f := range rep.Findings {
		if f.Code == card.CodeAuthNotEquivalent {
			open, protected, _ := strings.Cut(f.Message, "while")
			if !strings.Contains(open, "GRPC 1.0") || !strings.Contains(protected, "JSONRPC 1.0") || !strings.Contains(protected, "HTTP+JSON 1.0") {
				t.Errorf("message does not name gRPC open and the others protected: %s", f.Message)
			}
		}
	}
	// The protected bindings answer every capability call with 401: the calls cannot
	// tell, so no capability finding rests on them.
	for _, cr := range ch.Capabilities {
		if cr.Name == probe.Streaming && cr.Verdict != probe.CapabilityUnknown {
			t.Errorf("streaming verdict %s, want unknown (two bindings ask for credentials)", cr.Verdict)
		}
	}

	_, _, _, rep = checkLab(t, append(lab.Healthy(), lab.WithAuth(token)))
	if codes := newCodes(rep); len(codes) != 0 {
		t.Errorf("every binding protected: %v", codes)
	}
	_, _, ch, rep = checkLab(t, lab.OpenBinding(token), probe.WithConn(addr.Conn{Header: http.Header{"Authorization": {"Bearer " + token}}}))
	if codes := newCodes(rep); len(codes) != 0 {
		t.Errorf("with credentials: %v", codes)
	}
	if v := verdicts(ch)[probe.Streaming]; v != probe.CapabilityServed {
		t.Errorf("with credentials streaming is %s, want served", v)
	}
}

// TestErrorMapping: an agent answering TaskNotFound as gRPC INTERNAL and HTTP+JSON 500
// gets an error-mapping warning for each of those interfaces (the lookup's answer and
// the capability calls' answers are the evidence), and nothing else new; the report
// stays ok (a warning).
func TestErrorMapping(t *testing.T) {
	_, _, _, rep := checkLab(t, lab.MisMapped())
	var got []string
	for _, f := range rep.Findings {
		if f.Code == card.CodeErrorMapping {
			got = append(got, f.Interface+" "+f.Message[strings.LastIndex(f.Message, ": ")+2:])
		} else if capabilityCodes[f.Code] {
			t.Errorf("unexpected %s: %s", f.Code, f.Message)
		}
	}
	want := []string{
		"supportedInterfaces[1] TASK_NOT_FOUND answered as gRPC Internal, the specification says NotFound",
		"supportedInterfaces[2] TASK_NOT_FOUND answered with HTTP 500, the specification says 404",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error-mapping findings (-want +got):\n%s", diff)
	}
	if !rep.OK() {
		t.Errorf("a warning failed the report: %v", rep.Findings)
	}
}

// TestCapabilitiesBehindAuthentication: an agent asking for a token on every binding.
// Without it, the extended card's 401 is served (the card declares security schemes,
// and the specification asks for authentication there) while streaming and push cannot
// tell; no capability finding either way. With the token (allowed to the gRPC port,
// another origin than the card's) everything is served.
func TestCapabilitiesBehindAuthentication(t *testing.T) {
	const token = "lab-token"
	_, _, ch, rep := checkLab(t, lab.CapableProtected(token))
	want := map[probe.Capability]probe.Served{probe.Streaming: "unknown", probe.PushNotifications: "unknown", probe.ExtendedAgentCard: "served"}
	if diff := cmp.Diff(want, verdicts(ch)); diff != "" {
		t.Errorf("without the token (-want +got):\n%s", diff)
	}
	if codes := newCodes(rep); len(codes) != 0 {
		t.Errorf("without the token: %v", codes)
	}
	_, _, ch, rep = checkLab(t, lab.CapableProtected(token), probe.WithConn(addr.Conn{Header: http.Header{"Authorization": {"Bearer " + token}}, CredentialHosts: []string{"127.0.0.1"}}))
	want = map[probe.Capability]probe.Served{probe.Streaming: "served", probe.PushNotifications: "served", probe.ExtendedAgentCard: "served"}
	if diff := cmp.Diff(want, verdicts(ch)); diff != "" {
		t.Errorf("with the token (-want +got):\n%s", diff)
	}
	if codes := newCodes(rep); len(codes) != 0 {
		t.Errorf("with the token: %v", codes)
	}
}

// TestCapabilityCallsAuthRequired: without the token, every streaming and push call on
// an agent protecting every binding is auth_required (the verdict, unknown, sums them
// up); the extended card's is served, as the card declares security schemes.
func TestCapabilityCallsAuthRequired(t *testing.T) {
	_, _, ch, _ := checkLab(t, lab.CapableProtected("lab-token"))
	for _, cr := range ch.Capabilities {
		want := probe.CapabilityAuthRequired
		if cr.Name == probe.ExtendedAgentCard {
			want = probe.CapabilityServed
		}
		if len(cr.Calls) == 0 {
			t.Errorf("%s: no calls", cr.Name)
		}
		for _, call := range cr.Calls {
			if call.Outcome != want {
				t.Errorf("%s on %s = %s (%s), want %s", cr.Name, call.Interface, call.Outcome, call.Reason, want)
			}
		}
	}
}
