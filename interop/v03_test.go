package interop

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/servertest"
	"github.com/a2abind/a2abind/server"
)

// v03URL is the URL a card declares for a binding's v0.3 interface.
func v03URL(t *testing.T, c *card.Card, b a2a.TransportProtocol) string {
	t.Helper()
	for _, i := range c.Interfaces {
		if i.Binding == b && i.ProtocolVersion == card.V03 {
			return i.URL
		}
	}
	t.Fatalf("card declares no %s 0.3 interface: %+v", b, c.Interfaces)
	return ""
}

// runJS03 runs the @a2a-js/sdk 0.3.14 client (client03.mjs) preferring one binding.
func runJS03(t *testing.T, target string, prefer a2a.TransportProtocol) jsRun {
	t.Helper()
	return runJSScript(t, "client03.mjs", jsCall{Target: target, Prefer: []string{string(prefer)}})[0]
}

// TestV03ClientAgainstServeV03: a real v0.3 client, @a2a-js/sdk 0.3.14, talks to the
// guarded server as `serve --v03` runs it (the derived union card), on JSON-RPC and on
// HTTP+JSON, whose v0.3 routes it calls at {url}/v1/message:send and so on.
func TestV03ClientAgainstServeV03(t *testing.T) {
	t.Parallel()
	needNode(t)
	srv := servertest.Start(t, newHoldEcho(), server.WithV03())
	for _, b := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
		t.Run(string(b), func(t *testing.T) {
			run := runJS03(t, srv.BaseURL(), b)
			want := v03URL(t, srv.Card(), b)
			if !run.Create.OK || run.Create.Transport != string(b) || run.Create.URL != want {
				t.Fatalf("create = ok %v, %s at %q (%v), want %s at %q\n%s", run.Create.OK, run.Create.Transport, run.Create.URL, run.Create.Error, b, want, run.raw)
			}
			for _, op := range []string{"send", "get", "stream"} {
				s := run.Ops[op]
				if !s.OK || s.Result == nil || s.Result.State != "completed" || !strings.Contains(s.Result.Text, "hello interop") {
					t.Errorf("%s = ok %v result %+v error %v, want a completed task echoing the text", op, s.OK, s.Result, s.Error)
				}
			}
			if s := run.Ops["get"]; s.Result != nil && run.Ops["send"].Result != nil && s.Result.ID != run.Ops["send"].Result.ID {
				t.Errorf("get returned task %q, want the sent one %q", s.Result.ID, run.Ops["send"].Result.ID)
			}
			if s := run.Ops["get-unknown"]; s.OK || s.Error == nil || s.Error.Name != "TaskNotFoundError" {
				t.Errorf("get-unknown = ok %v error %v, want TaskNotFoundError", s.OK, s.Error)
			}
		})
	}
}

// TestJSLegacyCompatAgainstAV03Card: the @a2a-js/sdk 1.3.0 client with legacyCompat
// reads a v0.3 card the guarded server publishes (url, preferredTransport,
// additionalInterfaces) and speaks the v0.3 JSON-RPC and HTTP+JSON transports to it.
func TestJSLegacyCompatAgainstAV03Card(t *testing.T) {
	t.Parallel()
	needNode(t)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + lis.Addr().String()
	v03Card := map[string]any{
		"name": "echo-v03", "description": "a v0.3 card", "version": "1.0.0", "protocolVersion": "0.3.0",
		"url": base + server.PathJSONRPCV03, "preferredTransport": "JSONRPC",
		"additionalInterfaces": []map[string]string{
			{"url": base + server.PathJSONRPCV03, "transport": "JSONRPC"},
			{"url": base + server.PathRESTV03, "transport": "HTTP+JSON"},
		},
		"capabilities": map[string]bool{"streaming": true}, "skills": []any{},
		"defaultInputModes": []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"},
	}
	raw, err := json.Marshal(v03Card)
	if err != nil {
		t.Fatal(err)
	}
	srv := servertest.Start(t, newHoldEcho(), server.WithListeners(lis, nil), server.WithV03(), server.WithCardJSON(raw))
	bindings := []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON}
	var calls []jsCall
	for _, b := range bindings {
		calls = append(calls, jsCall{Target: srv.BaseURL(), Transports: transportsDefault, Prefer: []string{string(b)}, LegacyCompat: true})
	}
	runs := runJSClients(t, calls...)
	for n, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			if runs[n].Create.ProtocolVersion != card.V03 {
				t.Errorf("the client speaks %q, want the v0.3 transport", runs[n].Create.ProtocolVersion)
			}
			checkOps(t, runs[n], b, v03URL(t, srv.Card(), b))
		})
	}
}
