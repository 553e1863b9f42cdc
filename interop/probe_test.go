package interop

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// probeBudget bounds one probe run of a whole card.
const probeBudget = 15 * time.Second

// probeJS loads the card of a running server.mjs and probes every interface it declares.
func probeJS(t *testing.T, s *jsServer) (*card.Card, []probe.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), probeBudget)
	defer cancel()
	c, err := card.Load(ctx, s.BaseURL)
	if err != nil {
		t.Fatalf("card.Load(%s) = %v\nserver stderr:\n%s", s.BaseURL, err, s.stderr)
	}
	results := probe.Card(ctx, c, probe.WithTimeout(5*time.Second))
	if len(results) != len(c.Interfaces) {
		t.Fatalf("probe.Card returned %d results for %d interfaces", len(results), len(c.Interfaces))
	}
	return c, results
}

// probeRow is what the tests compare of one probe result.
type probeRow struct {
	Binding a2a.TransportProtocol
	URL     string
	Outcome wire.Outcome
	Actual  a2a.TransportProtocol // what really answers there
}

func rows(results []probe.Result) []probeRow {
	out := make([]probeRow, 0, len(results))
	for _, r := range results {
		out = append(out, probeRow{r.Interface.Binding, r.Interface.URL, r.Outcome, r.ActualBinding})
	}
	return out
}

// TestProbeJSServer probes a2a-js 1.3.0 agents: the honest one must come out served on
// all three bindings, and each lying card must be diagnosed for what it is.
func TestProbeJSServer(t *testing.T) {
	t.Parallel()
	needNode(t)
	hostPort := func(base string) string { return base[len("http://"):] }
	tests := []struct {
		mode string
		want func(s *jsServer) []probeRow
		// wantErrors are the error findings Diagnose must report, as "code interface
		// outcome" (outcome empty for preferred-not-served); nothing else may be an error.
		wantErrors []string
	}{
		{modeHonest, func(s *jsServer) []probeRow {
			return []probeRow{
				{a2a.TransportProtocolJSONRPC, s.JSONRPC, wire.Served, a2a.TransportProtocolJSONRPC},
				{a2a.TransportProtocolGRPC, s.GRPC, wire.Served, a2a.TransportProtocolGRPC},
				{a2a.TransportProtocolHTTPJSON, s.REST, wire.Served, a2a.TransportProtocolHTTPJSON},
			}
		}, nil},
		{modeGRPCAtHTTP, func(s *jsServer) []probeRow {
			return []probeRow{
				// gRPC at a port that speaks HTTP/1.1 only: the HTTP/2 preface fails. No
				// binding answers at that address itself (JSON-RPC is at another path of
				// it, which the detail notes but never attributes to this URL).
				{a2a.TransportProtocolGRPC, hostPort(s.BaseURL), wire.WrongBinding, ""},
				{a2a.TransportProtocolJSONRPC, s.JSONRPC, wire.Served, a2a.TransportProtocolJSONRPC},
				{a2a.TransportProtocolHTTPJSON, s.REST, wire.Served, a2a.TransportProtocolHTTPJSON},
			}
		}, []string{
			"preferred-not-served supportedInterfaces[0] wrong_binding",
			"interface-not-served supportedInterfaces[0] wrong_binding",
		}},
		{modeGRPCNoService, func(s *jsServer) []probeRow {
			return []probeRow{
				// A grpc-js server with no A2A service: UNIMPLEMENTED for both versions.
				{a2a.TransportProtocolGRPC, s.BareGRPC, wire.HandlerMissing, a2a.TransportProtocolGRPC},
				{a2a.TransportProtocolJSONRPC, s.JSONRPC, wire.Served, a2a.TransportProtocolJSONRPC},
				{a2a.TransportProtocolHTTPJSON, s.REST, wire.Served, a2a.TransportProtocolHTTPJSON},
			}
		}, []string{
			"preferred-not-served supportedInterfaces[0] handler_missing",
			"interface-not-served supportedInterfaces[0] handler_missing",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			s := startJSServer(t, tt.mode)
			c, results := probeJS(t, s)
			for _, r := range results {
				t.Logf("%s: %s (actual %q %q) %s", r.Interface, r.Outcome, r.ActualBinding, r.ActualVersion, r.Detail)
			}
			if diff := cmp.Diff(tt.want(s), rows(results)); diff != "" {
				t.Fatalf("probe.Card outcomes (-want +got):\n%s", diff)
			}
			report := probe.Diagnose(c, results)
			if diff := cmp.Diff(tt.wantErrors, errorFindings(report)); diff != "" {
				t.Errorf("Diagnose error findings (-want +got):\n%s\nall findings: %+v", diff, report.Findings)
			}
			if report.OK() != (len(tt.wantErrors) == 0) {
				t.Errorf("Diagnose().OK() = %v, want %v", report.OK(), len(tt.wantErrors) == 0)
			}
		})
	}
}

// errorFindings renders the error findings of a report as "code interface outcome",
// where outcome is the taxonomy value the message names.
func errorFindings(r probe.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Severity != card.SeverityError {
			continue
		}
		outcome := ""
		for _, o := range wire.Outcomes() {
			if strings.Contains(f.Message, ": "+string(o)+" ") {
				outcome = string(o)
				break
			}
		}
		out = append(out, strings.TrimSpace(f.Code+" "+f.Interface+" "+outcome))
	}
	return out
}
