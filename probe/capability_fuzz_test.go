package probe

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// FuzzFirstEvent: the reader of a stream's first event returns a prefix of the stream,
// never more than its limit, and stops at the blank line that ends the first event with
// data.
func FuzzFirstEvent(f *testing.F) {
	for _, s := range []string{
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"x\"}}\n\n",
		": keep-alive\n\n: again\n\ndata: {}\n\ndata: more\n\n",
		"event: message\r\ndata: a\r\ndata: b\r\n\r\nrest",
		"data:" + strings.Repeat("x", 5000),
		"\n\n\n",
		"",
	} {
		f.Add([]byte(s), 4096)
	}
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		if limit <= 0 || limit > 1<<20 {
			t.Skip()
		}
		got, err := firstEvent(bytes.NewReader(in), limit)
		if err != nil {
			t.Fatalf("firstEvent error %v on an in-memory stream", err)
		}
		if !bytes.HasPrefix(in, got) || len(got) > limit {
			t.Fatalf("firstEvent(%q, %d) = %q: not a prefix within the limit", in, limit, got)
		}
		if i := bytes.Index(in, []byte("data:x\n\n")); i == 0 && limit >= 8 && string(got) != "data:x\n\n" {
			t.Fatalf("firstEvent(%q) = %q, want the first event alone", in, got)
		}
	})
}

// FuzzCapabilityAnswers serves arbitrary answers to every capability call, JSON-RPC and
// HTTP+JSON, 1.0 and 0.3: each is read into a known outcome without panicking, and
// served only when wire.Classify says an A2A answer came (or, for the extended card on
// a card with security schemes, credentials were asked for).
func FuzzCapabilityAnswers(f *testing.F) {
	f.Add(200, "text/event-stream", []byte("data: {\"jsonrpc\":\"2.0\",\"id\":\"x\",\"error\":{\"code\":-32004,\"message\":\"no\"}}\n\n"))
	f.Add(400, "application/json", []byte(`{"error":{"code":400,"status":"FAILED_PRECONDITION","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"PUSH_NOTIFICATION_NOT_SUPPORTED"}]}}`))
	f.Add(200, "application/json", []byte(`{"jsonrpc":"2.0","id":"x","result":{"configs":[]}}`))
	f.Add(200, "application/json", []byte(`{"name":"x"}`))
	f.Add(400, "application/json", []byte(`{"code":-32007,"message":"no card"}`))
	f.Add(404, "text/plain", []byte("404 page not found"))
	f.Add(401, "text/plain", []byte("no"))
	srv := labtest.NewAnswerer(f)
	ep, err := parseEndpoint(srv.URL+"/a2a", a2a.TransportProtocolJSONRPC)
	if err != nil {
		f.Fatal(err)
	}
	e := NewEngine()
	f.Cleanup(func() { _ = e.Close() })
	o := newOptions(nil)
	o.engine = e
	known := []Served{CapabilityServed, CapabilityNotServed, CapabilityAuthRequired, CapabilityUnknown}
	f.Fuzz(func(t *testing.T, s int, ct string, b []byte) {
		if s < 200 || s > 599 || strings.ContainsAny(ct, "\r\n\x00") {
			t.Skip()
		}
		srv.Set(s, ct, b)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, k := range AllCapabilities() {
			for _, v := range []string{"1.0", "0.3"} {
				req := request{ep: ep, version: v, taskID: "a2abind-probe-fuzz", o: o, mode: tlsAuto, op: capabilityOps[k]}
				for _, a := range []attempt{probeJSONRPC(ctx, req), probeHTTPJSON(ctx, req)} {
					for _, secured := range []bool{false, true} {
						got, why := callOutcome(k, a.ev, secured)
						if !slices.Contains(known, got) || why == "" {
							t.Fatalf("callOutcome = %q %q for %d %q %q", got, why, s, ct, b)
						}
						o, _ := wire.Classify(a.ev)
						if got == CapabilityServed && o != wire.Served && !(secured && k == ExtendedAgentCard && o == wire.AuthRequired) {
							t.Fatalf("%s served on %s for %d %q %q", k, o, s, ct, b)
						}
						_ = wire.MappingProblem(a.ev)
					}
				}
			}
		}
	})
}
