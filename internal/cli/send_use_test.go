package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

func TestParseBindingAndUse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want a2a.TransportProtocol
	}{{"rest", a2a.TransportProtocolHTTPJSON}, {"REST", a2a.TransportProtocolHTTPJSON}, {"http+json", a2a.TransportProtocolHTTPJSON},
		{"grpc", a2a.TransportProtocolGRPC}, {"JSONRPC", a2a.TransportProtocolJSONRPC}} {
		if got, err := parseBinding(tt.in); err != nil || got != tt.want {
			t.Errorf("parseBinding(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := parseBinding("soap"); err == nil || !strings.Contains(err.Error(), "or rest") {
		t.Errorf("parseBinding(soap) = %v, want an error naming the accepted words", err)
	}
	got, err := parseUse("rest@0.3.0=http://127.0.0.1:9/a2a")
	want := card.Interface{URL: "http://127.0.0.1:9/a2a", Binding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: "0.3"}
	if err != nil || got != want {
		t.Errorf("parseUse = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"JSONRPC=http://h:1", "JSONRPC@0.3", "soap@0.3=http://h:1", "JSONRPC@2.0=http://h:1",
		"GRPC@1.0=http://[::1", "JSONRPC@1.0="} {
		if _, err := parseUse(bad); err == nil || !strings.Contains(err.Error(), "--use") {
			t.Errorf("parseUse(%q) = %v, want an error naming --use", bad, err)
		}
	}
}

// TestSendUseUndeclaredInterface: an agent whose card declares JSON-RPC 1.0 and serves
// JSON-RPC 0.3 at that URL (as a2a-go's "a2a serve --protocol 0.3" does for HTTP+JSON).
// send alone fails with version_mismatch; send --use JSONRPC@0.3=URL calls the interface
// the probe proved, on the wire, and the output names it as not declared.
func TestSendUseUndeclaredInterface(t *testing.T) {
	a := labtest.Start(t,
		lab.WithJSONRPC(card.V03, "/"),
		lab.WithCard(func(a *lab.Agent) any {
			return lab.V1Card("drift", lab.Decl{URL: a.BaseURL, Binding: lab.JSONRPC, Version: card.V1})
		}))

	code, stdout, stderr := sendCLI(t, a.BaseURL, "hello", "-o", "json", "--no-cache", "--timeout", "10s")
	if ok, outcomes, _ := decodeSend(t, stdout); code != ExitFailed || ok || len(outcomes) != 1 || outcomes[0] != "version_mismatch" {
		t.Fatalf("send without --use = exit %d, outcomes %v; want 1 and version_mismatch\n%s%s", code, outcomes, stdout, stderr)
	}

	code, stdout, stderr = sendCLI(t, a.BaseURL, "hello drift", "-o", "json", "--no-cache", "--timeout", "10s",
		"--use", "jsonrpc@0.3="+a.BaseURL)
	var out sendOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if code != ExitOK || !out.OK || len(out.Attempts) != 1 {
		t.Fatalf("send --use = exit %d, %+v; want 0 and one attempt\n%s", code, out, stderr)
	}
	at := out.Attempts[0]
	if !at.Undeclared || at.ProtocolVersion != "0.3" || at.Outcome != "served" || at.URL != a.BaseURL {
		t.Errorf("attempt = %+v, want the undeclared JSONRPC 0.3 interface, served", at)
	}
	if res, _ := json.Marshal(out.Result); !strings.Contains(string(res), "hello drift") {
		t.Errorf("result %s lacks the echo", res)
	}
	// Text, -v: the attempt line says the card does not declare it.
	code, stdout, stderr = sendCLI(t, a.BaseURL, "hi", "-v", "--no-cache", "--timeout", "10s", "--use", "JSONRPC@0.3="+a.BaseURL)
	if code != ExitOK || !strings.Contains(stderr, "JSONRPC 0.3 at "+a.BaseURL+" (--use, not declared by the card): served") {
		t.Errorf("send --use -v = %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	// An address the dial policy refuses is refused under --use too: nothing is sent
	// to the cloud-metadata address, the declared interface is tried alone.
	code, stdout, _ = sendCLI(t, a.BaseURL, "hi", "-o", "json", "--no-cache", "--timeout", "10s",
		"--use", "JSONRPC@0.3=http://169.254.169.254/")
	if strings.Contains(stdout, "169.254.169.254") || code != ExitFailed {
		t.Errorf("send --use to a metadata address = %d:\n%s", code, stdout)
	}
	// A bad --use is a usage error before anything is sent.
	if code, _, stderr := sendCLI(t, a.BaseURL, "hi", "--use", "JSONRPC@9=x"); code != ExitUsage || !strings.Contains(stderr, "--use") {
		t.Errorf("bad --use = %d, %s; want 2", code, stderr)
	}
}

// TestSendBindingRest: --binding rest is HTTP+JSON.
func TestSendBindingRest(t *testing.T) {
	a := labtest.Start(t, lab.Healthy()...)
	code, stdout, stderr := sendCLI(t, a.BaseURL, "hi", "--binding", "rest", "-o", "json", "--no-cache", "--timeout", "10s")
	var out sendOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if code != ExitOK || len(out.Attempts) != 1 || out.Attempts[0].Binding != a2a.TransportProtocolHTTPJSON {
		t.Errorf("send --binding rest = %d, %+v; want one HTTP+JSON attempt\n%s", code, out.Attempts, stderr)
	}
}

// TestSendUseDeclaredInterface: --use naming an interface the card does declare moves
// the card's own entry first; it is not reported as undeclared.
func TestSendUseDeclaredInterface(t *testing.T) {
	a := labtest.Start(t, lab.Seed()...)
	code, stdout, stderr := sendCLI(t, a.BaseURL, "hi", "-o", "json", "--no-cache", "--timeout", "10s", "--use", "JSONRPC@0.3="+a.BaseURL)
	var out sendOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if code != ExitOK || len(out.Attempts) != 1 || out.Attempts[0].Undeclared || out.Attempts[0].Binding != a2a.TransportProtocolJSONRPC {
		t.Errorf("send --use on a declared interface = %d, %+v; want one declared JSONRPC attempt\n%s", code, out.Attempts, stderr)
	}
}
