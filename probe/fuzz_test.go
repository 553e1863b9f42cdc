package probe

import (
	"context"
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

// FuzzSnippet holds snippet's shortcut for printable ASCII to its general reading:
// the first 120 bytes, invalid UTF-8 as "?", control characters but newline and tab
// as ".".
func FuzzSnippet(f *testing.F) {
	for _, s := range []string{"", "plain text\n\tok", "a\x00b", "caf\xc3\xa9", "\xff\xfe", "\x7f", strings.Repeat("x", 130)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in := b
		if len(in) > 120 {
			in = in[:120]
		}
		want := strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\n' && r != '\t' {
				return '.'
			}
			return r
		}, strings.ToValidUTF8(string(in), "?"))
		if got := snippet(b); got != want {
			t.Fatalf("snippet(%q) = %q, want %q", b, got, want)
		}
	})
}
