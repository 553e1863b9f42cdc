package probe

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// FuzzParseJSONRPCResponse feeds arbitrary bytes to the JSON-RPC response parser: it
// must never panic, and what it accepts must be a result or an error with a code.
func FuzzParseJSONRPCResponse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"id":"t-1","status":{"state":"TASK_STATE_COMPLETED"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"method":"GetTask"}}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"Content type not supported"}}`,
		`{"jsonrpc":"2.0","result":null}`,
		`{"jsonrpc":"1.0","result":1}`,
		`{"jsonrpc":"2.0","error":{"code":1e3}}`,
		`{"jsonrpc":"2.0","error":{"code":-99999999999}}`,
		`{"jsonrpc":"2.0","result":1,"error":{"code":-1}}`,
		`{"error":{"code":404,"status":"NOT_FOUND","message":"x"}}`,
		"404 page not found\n", "", "{", "\x00\x00\x06\x04", `[{"jsonrpc":"2.0"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseJSONRPCResponse(b)
		if err != nil {
			if !errors.Is(err, errNotJSONRPC) {
				t.Fatalf("parseJSONRPCResponse() error %v does not wrap errNotJSONRPC", err)
			}
			return
		}
		if r.Result == (r.Code != 0) {
			t.Fatalf("parseJSONRPCResponse(%q) = %+v: want exactly one of a result and an error code", b, r)
		}
		_ = r.String()
		o, _ := wire.Classify(wire.Evidence{Binding: a2a.TransportProtocolJSONRPC, HTTPStatus: 200, JSONRPCCode: r.Code, Reason: r.Reason, Framing: a2a.TransportProtocolJSONRPC})
		if !slices.Contains(wire.Outcomes(), o) {
			t.Fatalf("Classify() = %q, not an outcome", o)
		}
	})
}

// FuzzParseStatusBody feeds arbitrary bytes to the HTTP+JSON error body parser.
func FuzzParseStatusBody(f *testing.F) {
	for _, s := range []string{
		`{"error":{"code":404,"status":"NOT_FOUND","message":"failed to get task: task not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"x"}}]}}`,
		`{"error":{"code":400,"status":"FAILED_PRECONDITION","details":[{"reason":"VERSION_NOT_SUPPORTED"}]}}`,
		`{"error":{"code":"404"}}`, `{"error":{"code":4.5}}`, `{"error":null}`, `{"error":{"code":-1}}`,
		`{"error":{"code":404,"details":{"reason":"X"}}}`, `{"error":{"code":404,"details":[1,"a",null]}}`,
		`{"type":"about:blank","title":"Not Found","status":404}`, "", "null", "[]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, ok := parseStatusBody(b)
		if !ok {
			if s != (statusBody{}) {
				t.Fatalf("parseStatusBody(%q) rejected but returned %+v", b, s)
			}
			return
		}
		if s.Code < 0 || s.Code > 999 {
			t.Fatalf("parseStatusBody(%q).Code = %d, not an HTTP status", b, s.Code)
		}
		_ = s.String()
		_ = restVersion("application/problem+json", s)
	})
}

// FuzzParseEndpoint feeds arbitrary interface URLs to the address parser: accepted ones
// must give a dialable host:port and HTTP URLs that parse.
func FuzzParseEndpoint(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1:8080/a2a/jsonrpc", "https://agent.example.com", "127.0.0.1:9443", "[::1]:50051",
		"grpc://h:1", "grpcs://h", "https://h:8443/a/b/?q=1#frag", "http://[::1", "ftp://x", "host", ":80",
		"http://:80", "https://user:pw@h:1/p", "dns:///h:1", "  http://h:1  ", "http://h:99999",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ep, err := parseEndpoint(s, a2a.TransportProtocolGRPC)
		if err != nil {
			return
		}
		host, port, err := net.SplitHostPort(ep.hostport)
		if err != nil || port == "" {
			t.Fatalf("parseEndpoint(%q).hostport = %q: not host:port (%v)", s, ep.hostport, err)
		}
		_ = host
		for _, m := range []tlsMode{tlsAuto, tlsOn, tlsOff} {
			u := ep.httpURL(m)
			if _, err := url.Parse(u); err != nil {
				t.Fatalf("parseEndpoint(%q).httpURL(%v) = %q does not parse: %v", s, m, u, err)
			}
		}
		_ = ep.siblings([]string{s, "http://" + ep.hostport + "/x"})
		_ = ep.notes(a2a.TransportProtocolGRPC)
	})
}

// FuzzParseFlatError feeds arbitrary bytes to the parser of a2a-js's v0.3 REST error
// body: it must never panic, and what it accepts carries a JSON-RPC-range code.
func FuzzParseFlatError(f *testing.F) {
	for _, s := range []string{
		`{"code":-32001,"message":"Task not found: abc"}`,
		`{"code":-32601,"message":"Method not found","data":{}}`,
		`{"code":404,"message":"not found"}`,
		`{"jsonrpc":"2.0","code":-32001,"message":"x"}`,
		`{"error":{"code":-32001},"code":-32001,"message":"x"}`,
		`{"code":-32001}`, `{"code":"-32001","message":"x"}`, `{"code":-3.2e4,"message":""}`,
		`{"code":-99999999999999999999,"message":"x"}`, `[]`, `null`, "", "{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, ok := parseFlatError(b)
		if !ok {
			return
		}
		if e.Code < -32768 || e.Code > -31000 {
			t.Fatalf("parseFlatError(%q) = %+v: code out of range", b, e)
		}
		_ = e.String()
	})
}

// FuzzHTTPAnswers serves arbitrary statuses, content types and bodies on loopback and
// runs the JSON-RPC and HTTP+JSON probers against them: whatever comes back, they must
// classify it into a known outcome without panicking, and never call it served unless
// the answer carries an A2A signal.
func FuzzHTTPAnswers(f *testing.F) {
	f.Add(200, "application/json", []byte(`{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"task not found"}}`))
	f.Add(404, "application/json", []byte(`{"error":{"code":404,"status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]}}`))
	f.Add(404, "application/problem+json", []byte(`{"error":{"code":404,"status":"NOT_FOUND","details":[{"reason":"TASK_NOT_FOUND"}]}}`))
	f.Add(200, "text/html", []byte("<html>hello</html>"))
	f.Add(400, "text/plain", []byte("Client sent an HTTP request to an HTTPS server."))
	f.Add(401, "text/plain", []byte("no"))
	f.Add(302, "", []byte(""))
	f.Add(500, "application/json", []byte(`{"jsonrpc":"2.0","error":{"code":-32603}}`))
	srv := labtest.NewAnswerer(f)
	ep, err := parseEndpoint(srv.URL+"/a2a", a2a.TransportProtocolJSONRPC)
	if err != nil {
		f.Fatal(err)
	}
	e := NewEngine()
	f.Cleanup(func() { _ = e.Close() })
	o := newOptions(nil)
	o.engine = e
	f.Fuzz(func(t *testing.T, s int, ct string, b []byte) {
		if s < 200 || s > 599 || strings.ContainsAny(ct, "\r\n\x00") {
			t.Skip()
		}
		srv.Set(s, ct, b)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, v := range []string{"1.0", "0.3"} {
			req := request{ep: ep, version: v, taskID: "a2abind-probe-fuzz", o: o, mode: tlsAuto}
			for _, a := range []attempt{probeJSONRPC(ctx, req), probeHTTPJSON(ctx, req)} {
				got, _ := wire.Classify(a.ev)
				if !slices.Contains(wire.Outcomes(), got) {
					t.Fatalf("Classify() = %q for %d %q %q", got, s, ct, b)
				}
				if got == wire.Served && a.ev.Framing != a.ev.Binding {
					t.Fatalf("%s answer framed %q classified served: %d %q %q", a.ev.Binding, a.ev.Framing, s, ct, b)
				}
				if a.describe() == "" {
					t.Fatal("empty description")
				}
			}
		}
	})
}
