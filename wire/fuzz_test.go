package wire_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/wire"
)

// FuzzClassify feeds arbitrary statuses, codes and texts to the classifier: it must
// always return a known outcome and a reason, and keep the evidence rules: after a full
// write, a transport error's text never proves that no handler was reached, and a gRPC
// status the server answered is never read as a connection failure.
func FuzzClassify(f *testing.F) {
	f.Add(200, -32001, 0, "", "", "JSONRPC", "JSONRPC", false, false)
	f.Add(400, 0, 0, "", "Client sent an HTTP request to an HTTPS server.", "JSONRPC", "unrecognised", false, false)
	f.Add(0, 0, 14, `connection error: desc = "error reading server preface: http2: frame too large"`, "", "GRPC", "", true, false)
	f.Add(0, 0, 12, "unknown service lf.a2a.v1.A2AService", "", "GRPC", "GRPC", true, true)
	f.Add(0, 0, 13, "tool call failed: dial tcp 10.0.0.5:5432: connect: connection refused", "", "GRPC", "GRPC", true, true)
	f.Add(0, 0, 14, "unexpected HTTP status code received from server: 404 (Not Found)", "", "GRPC", "", true, false)
	f.Add(0, 0, -1, "dial tcp: lookup agent.invalid: no such host", "", "HTTP+JSON", "", false, false)
	f.Add(0, 0, -1, `net/http: HTTP/1.x transport connection broken: malformed HTTP status code "2OO"`, "", "JSONRPC", "", true, false)
	f.Add(501, 0, -1, "", "<html>Not Implemented</html>", "JSONRPC", "unrecognised", true, false)
	f.Fuzz(func(t *testing.T, status, rpcCode, grpcCode int, msg, body, binding, framing string, sent, answered bool) {
		ev := wire.Evidence{Binding: a2a.TransportProtocol(binding), HTTPStatus: status, JSONRPCCode: rpcCode, Body: body,
			Framing: a2a.TransportProtocol(framing), Sent: sent, Version: "1.0", AnswerVersion: strings.ToUpper(framing)}
		switch {
		case grpcCode >= 0:
			ev.GRPC, ev.GRPCCode, ev.GRPCMessage, ev.Answered = true, codes.Code(grpcCode), msg, answered
		case msg != "":
			ev.Err = errors.New(msg)
		}
		o, why := wire.Classify(ev)
		if !slices.Contains(wire.Outcomes(), o) {
			t.Fatalf("Classify(%+v) = %q, not an outcome", ev, o)
		}
		if why == "" {
			t.Fatalf("Classify(%+v) gave no reason", ev)
		}
		connection := o == wire.Refused || o == wire.Unreachable || o == wire.TLSMismatch || o == wire.Malformed || o == wire.Timeout
		if sent && !ev.GRPC && status == 0 && rpcCode == 0 && connection {
			t.Fatalf("Classify(%+v) = %s after a full write, from a transport error alone", ev, o)
		}
		if ev.GRPC && ev.Answered && status == 0 && connection {
			t.Fatalf("Classify(%+v) = %s from a status the server answered", ev, o)
		}
	})
}
