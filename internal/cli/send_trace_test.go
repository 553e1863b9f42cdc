package cli

import (
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
)

// TestSendTraceJoinsTheAgent: `send` of the seed incident's agent, traced through the
// OTEL_* variables to a real OTLP receiver on loopback (otlptest: why not Jaeger is in
// its doc), gives one trace: the root span "send", the delegate's call span under it,
// one client span per attempt with its outcome (the card's preferred gRPC interface,
// where no A2A service is registered, then JSON-RPC, served), a "fallback" event
// naming the interface left, the next one and the evidence, and every request the
// agent received (card fetch, both attempts, the lookup naming the gRPC failure)
// carrying the trace id, each attempt's request with that attempt's span as parent.
func TestSendTraceJoinsTheAgent(t *testing.T) {
	for _, protocol := range []string{"grpc", "http/protobuf"} {
		t.Run(protocol, func(t *testing.T) {
			rcv := otlptest.Start(t)
			rcv.Env(t, protocol)
			agent, rec := tracedSeed(t)

			code, stdout, stderr := sendCLI(t, agent.BaseURL, "trace me", "--no-cache", "-o", "json")
			if code != ExitOK {
				t.Fatalf("send exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			// run flushed the spans on exit; Wait only guards against a slow receiver.
			spans, err := rcv.Wait(5*time.Second, func(s []otlptest.Span) bool {
				return slices.ContainsFunc(s, func(sp otlptest.Span) bool { return sp.Name == spanSend })
			})
			if err != nil {
				t.Fatalf("no send span arrived: %v (%d spans)", err, len(spans))
			}
			root := only(t, spans, func(s otlptest.Span) bool { return s.Name == spanSend })
			if root.ParentSpanID != "" || root.Kind.String() != "SPAN_KIND_INTERNAL" {
				t.Errorf("send span parent %q kind %v, want a root, internal", root.ParentSpanID, root.Kind)
			}
			tr := rcv.Trace(root.TraceID)
			call := only(t, tr, func(s otlptest.Span) bool { return s.Name == delegate.SpanCall })
			if call.ParentSpanID != root.SpanID {
				t.Errorf("call span's parent %s, want the send span %s", call.ParentSpanID, root.SpanID)
			}
			grpcAttempt := only(t, tr, func(s otlptest.Span) bool {
				return s.Name == "SendMessage" && s.ParentSpanID == call.SpanID && s.Attrs["a2abind.binding"] == "GRPC"
			})
			jsonAttempt := only(t, tr, func(s otlptest.Span) bool {
				return s.Name == "SendMessage" && s.ParentSpanID == call.SpanID && s.Attrs["a2abind.binding"] == "JSONRPC"
			})
			grpcPort, httpPort := portOf(t, agent.GRPCAddr), portOf(t, agent.HTTPAddr)
			for _, c := range []struct {
				span otlptest.Span
				want map[string]string
			}{
				{grpcAttempt, map[string]string{
					"a2abind.outcome": "handler_missing", "error.type": "handler_missing", "rpc.system": "grpc",
					"a2abind.protocol_version": "0.3", "server.address": "127.0.0.1", "server.port": grpcPort,
					"rpc.response.status_code": "UNIMPLEMENTED", "a2a.method.name": "SendMessage",
				}},
				{jsonAttempt, map[string]string{
					"a2abind.outcome": "served", "rpc.system": "jsonrpc", "a2abind.protocol_version": "0.3",
					"server.address": "127.0.0.1", "server.port": httpPort, "a2a.task.state": "TASK_STATE_COMPLETED",
				}},
			} {
				for k, v := range c.want {
					if got := c.span.Attrs[k]; got != v {
						t.Errorf("%s attempt: %s = %q, want %q", c.span.Attrs["a2abind.binding"], k, got, v)
					}
				}
				if c.span.Kind.String() != "SPAN_KIND_CLIENT" {
					t.Errorf("attempt kind %v, want client", c.span.Kind)
				}
			}
			if grpcAttempt.StatusCode.String() != "STATUS_CODE_ERROR" || jsonAttempt.StatusCode.String() == "STATUS_CODE_ERROR" {
				t.Errorf("statuses: gRPC attempt %v, JSON-RPC attempt %v", grpcAttempt.StatusCode, jsonAttempt.StatusCode)
			}
			if jsonAttempt.Attrs["a2a.task.id"] == "" || call.Attrs["a2a.task.id"] != jsonAttempt.Attrs["a2a.task.id"] {
				t.Errorf("task id: attempt %q, call %q", jsonAttempt.Attrs["a2a.task.id"], call.Attrs["a2a.task.id"])
			}
			if call.Attrs["a2abind.attempts"] != "2" || call.Attrs["a2abind.outcome"] != "served" {
				t.Errorf("call attributes %v", call.Attrs)
			}
			if len(call.Events) != 1 || call.Events[0].Name != "fallback" {
				t.Fatalf("call events %+v, want one fallback", call.Events)
			}
			ev := call.Events[0].Attrs
			if ev["a2abind.fallback.from"] != "GRPC 0.3 at "+agent.GRPCAddr || ev["a2abind.fallback.to"] != "JSONRPC 0.3 at "+agent.BaseURL ||
				ev["a2abind.outcome"] != "handler_missing" || ev["a2abind.evidence"] == "" {
				t.Errorf("fallback event %v", ev)
			}

			// What the agent received, recorded server-side.
			ids := map[string]bool{}
			for _, s := range tr {
				ids[s.SpanID] = true
			}
			seen := rec.Received()
			var cardFetch, grpcCall, post bool
			for _, s := range seen {
				if s.TraceID() != root.TraceID || !ids[s.ParentID()] {
					t.Errorf("the agent received %s with traceparent %q, not a span of trace %s", s.Method, s.Traceparent, root.TraceID)
				}
				switch s.Method {
				case "GET /.well-known/agent-card.json":
					cardFetch = true
				case "/a2a.v1.A2AService/SendMessage":
					grpcCall = s.ParentID() == grpcAttempt.SpanID
				case "POST /":
					post = s.ParentID() == jsonAttempt.SpanID
				}
			}
			if !cardFetch || !grpcCall || !post {
				t.Errorf("card fetch %v, gRPC attempt under its span %v, JSON-RPC attempt under its span %v; the agent saw %+v",
					cardFetch, grpcCall, post, seen)
			}
		})
	}
}

// only returns the one span that match selects, failing t otherwise.
func only(t *testing.T, spans []otlptest.Span, match func(otlptest.Span) bool) otlptest.Span {
	t.Helper()
	var found []otlptest.Span
	for _, s := range spans {
		if match(s) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name+"("+s.Attrs["a2abind.binding"]+")")
		}
		t.Fatalf("%d matching spans, want 1; spans: %v", len(found), names)
	}
	return found[0]
}

// portOf is the port of a host:port, as card reads it.
func portOf(t *testing.T, hostport string) string {
	t.Helper()
	a, err := addr.ParseAddress(hostport, a2a.TransportProtocolGRPC)
	if err != nil {
		t.Fatal(err)
	}
	return a.Port
}
