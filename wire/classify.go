package wire

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// grpcOutcomes maps gRPC status codes to outcomes.
var grpcOutcomes = map[codes.Code]Outcome{
	codes.OK:                 Served,
	codes.NotFound:           Served, // TaskNotFound for the probe's random id
	codes.Unimplemented:      HandlerMissing,
	codes.Unauthenticated:    AuthRequired,
	codes.PermissionDenied:   AuthRequired,
	codes.InvalidArgument:    AgentError,
	codes.FailedPrecondition: AgentError, // refined by Reason (VERSION_NOT_SUPPORTED)
	codes.Internal:           Ambiguous,
	codes.Unknown:            Ambiguous,
	codes.DataLoss:           Ambiguous,
	codes.ResourceExhausted:  AgentError,
	codes.Aborted:            Ambiguous,
	codes.Canceled:           Ambiguous,
	codes.DeadlineExceeded:   Timeout,
	codes.Unavailable:        Refused, // refined from the message: HTTP/1 preface, TLS, refused
}

// Classify decides the outcome of one request from its evidence, with a one-line reason.
// The order matters: an answer in another binding's framing or one that fits no binding
// is decided first (unless its HTTP status already says it all), then an A2A ErrorInfo
// reason, then the gRPC code, the JSON-RPC code, the HTTP status, and last the
// transport error.
//
// It is also the one place that says whether the request may have reached a handler:
// once the request was fully written (Evidence.Sent), only an answer that proves it
// reached none keeps a "never reached" outcome (verdict.proof; docs/taxonomy.md lists
// the proofs); anything else is Ambiguous.
// Served, AgentError and Ambiguous are the outcomes that may have reached a handler
// (Outcome.ReachedHandler).
func Classify(ev Evidence) (Outcome, string) {
	v := Judge(ev)
	return v.Outcome, v.Why
}

// Verdict is Classify's judgement of one request, with the weight of its evidence in
// the fallback table (Rules).
type Verdict struct {
	// Outcome is the request's outcome.
	Outcome Outcome
	// Why is a one-line reason.
	Why string
	// Weight says whether the evidence proves that no handler ran, needs confirmation,
	// or leaves the request ambiguous.
	Weight Weight
}

// Judge is Classify with the weight of the evidence: which row of the fallback table
// (Rules) the answer falls in.
func Judge(ev Evidence) Verdict {
	v := classify(ev)
	if av := answerVersion(ev); v.o == Served && av != "" && ev.Version != "" && av != ev.Version {
		return Verdict{VersionMismatch, fmt.Sprintf("%s; the answer is %s-shaped, %s was asked", v.why, av, ev.Version), rules[kindHTTPNotHere].Weight}
	}
	if v.o == AgentError && otherVersionRefusal(ev) {
		// The other protocol version's handler refused the request's shape.
		return Verdict{VersionMismatch, fmt.Sprintf("%s; the answer is %s-shaped, %s was asked", v.why, answerVersion(ev), ev.Version), rules[kindHTTPNotHere].Weight}
	}
	switch {
	case v.o == Served || v.o == AgentError:
		return Verdict{v.o, v.why, HandlerAnswered}
	case v.o == Ambiguous:
		return Verdict{v.o, v.why, Unproven}
	case v.k != kindUnproven:
		return Verdict{v.o, v.why, rules[v.k].Weight}
	case ev.Sent:
		return Verdict{Ambiguous, v.why + " (after the request was written; nothing proves it reached no handler)", Unproven}
	}
	return Verdict{v.o, v.why, rules[kindNotWritten].Weight}
}

// verdict is one classification: the outcome, why, and the kind of evidence (the row
// of the fallback table): an answer proving or suggesting that the request reached no
// handler, or one that may have come after a handler ran (kindUnproven).
type verdict struct {
	o   Outcome
	why string
	k   kind
}

func by(k kind, o Outcome, why string) verdict { return verdict{o, why, k} }
func seen(o Outcome, why string) verdict       { return verdict{o, why, kindUnproven} }

func classify(ev Evidence) verdict {
	if ev.Framing != "" && ev.Framing != ev.Binding && ev.Binding != "" {
		if decisiveStatus(ev) {
			// The status says it all; an A2A reason in another binding's body is not ours.
			return classifyHTTP(ev)
		}
		if ev.Framing == Unrecognised {
			if ev.HTTPStatus >= 500 {
				return classifyHTTP(ev)
			}
			return seen(Malformed, fmt.Sprintf("HTTP %d answer that fits no A2A binding", ev.HTTPStatus))
		}
		// Another binding's error object proves that binding's handler refused the
		// request; a success in another framing proves nothing about ours.
		why := fmt.Sprintf("%s asked, the answer is %s", ev.Binding, ev.Framing)
		if ev.HTTPStatus >= 400 || ev.JSONRPCCode != 0 || ev.Reason != "" {
			return by(kindFraming, WrongBinding, why)
		}
		return seen(WrongBinding, why)
	}
	if ev.Reason != "" {
		if o, ok := reasonOutcome(ev.Reason); ok {
			return by(answerKind(o), o, "A2A error "+ev.Reason)
		}
	}
	switch {
	case ev.GRPC:
		return classifyGRPC(ev)
	case ev.JSONRPCCode != 0:
		if e, ok := byJSONRPC[ev.JSONRPCCode]; ok {
			return by(answerKind(e.Outcome), e.Outcome, fmt.Sprintf("JSON-RPC error %d", ev.JSONRPCCode))
		}
		if ev.JSONRPCCode <= -32000 && ev.JSONRPCCode >= -32099 {
			return by(kindAnswer, AgentError, fmt.Sprintf("JSON-RPC A2A error %d", ev.JSONRPCCode))
		}
		return by(kindAnswer, AgentError, fmt.Sprintf("JSON-RPC error %d", ev.JSONRPCCode))
	case ev.HTTPStatus >= 200 && ev.HTTPStatus < 300 && ev.Err != nil:
		// A success status, then the body was cut (reset, deadline, a size bound): the
		// request was sent and may have been handled.
		o, why := ClassifyError(ev.Err, true)
		return seen(o, fmt.Sprintf("HTTP %d, then the answer was cut: %s", ev.HTTPStatus, why))
	case ev.HTTPStatus != 0:
		return classifyHTTP(ev)
	case ev.Err != nil:
		o, why := ClassifyError(ev.Err, ev.Sent)
		return seen(o, why)
	}
	return seen(Served, "answered")
}

// otherVersionRefusal reports a 4xx HTTP+JSON answer in the other protocol version's
// shape (a2a-go's v0.3 handler answers application/problem+json): that version's
// handler refused the request as malformed for it.
func otherVersionRefusal(ev Evidence) bool {
	v := answerVersion(ev)
	return ev.Binding == a2a.TransportProtocolHTTPJSON && ev.HTTPStatus >= 400 && ev.HTTPStatus < 500 &&
		v != "" && ev.Version != "" && v != ev.Version
}

// answerVersion is the protocol version the answer's shape belongs to: what the caller
// read from it, else what its media type says (application/problem+json is v0.3's).
func answerVersion(ev Evidence) string {
	if ev.AnswerVersion != "" {
		return ev.AnswerVersion
	}
	if MediaType(ev.ContentType) == "application/problem+json" {
		return card.V03
	}
	return ""
}

// decisiveStatus reports whether the HTTP status decides the outcome whatever the body:
// credentials, no route, a content type refused, TLS spoken to plaintext.
func decisiveStatus(ev Evidence) bool {
	switch ev.HTTPStatus {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed,
		http.StatusUnsupportedMediaType, http.StatusNotImplemented:
		return true
	case http.StatusBadRequest:
		return plaintextToTLS(ev.Body)
	}
	return ev.HTTPStatus >= 300 && ev.HTTPStatus < 400
}

// tlsRejections are what TLS servers answer to a plaintext HTTP request.
var tlsRejections = []string{
	"HTTP request to an HTTPS server",              // Go net/http
	"plain HTTP request was sent to HTTPS port",    // nginx
	"speaking plain HTTP to an SSL-enabled server", // Apache
}

func plaintextToTLS(body string) bool {
	for _, t := range tlsRejections {
		if strings.Contains(body, t) {
			return true
		}
	}
	return false
}

// answerKind is the kind of an A2A answer (an error code or ErrorInfo reason) with
// outcome o: an answer from a handler, a refusal of the credentials, or an error that
// may mean "not here", which an agent could also relay after running the message.
func answerKind(o Outcome) kind {
	switch o {
	case Served, AgentError:
		return kindAnswer
	case AuthRequired:
		return kindAuth
	}
	return kindA2ANotHere
}

// grpcUnknownMethod reports grpc-go's own UNIMPLEMENTED text for a service or method
// with no registered handler ("unknown service %s", "unknown method %s for service %s").
func grpcUnknownMethod(msg string) bool {
	return strings.HasPrefix(msg, "unknown service ") || strings.HasPrefix(msg, "unknown method ")
}

// grpcHTTPStatus is how grpc-go reports an HTTP answer that is not gRPC (an HTTP/2
// server of another binding, or a proxy): a status it makes up client-side, naming the
// HTTP status it received.
const grpcHTTPStatus = "unexpected HTTP status code received from server: "

func classifyGRPC(ev Evidence) verdict {
	detail := fmt.Sprintf("gRPC %s: %s", ev.GRPCCode, ev.GRPCMessage)
	if ev.Answered {
		// The status came from a gRPC server (response headers or trailers arrived): its
		// message is the server's text, never evidence of a connection failure.
		switch ev.GRPCCode {
		case codes.Unimplemented:
			// No ErrorInfo (decided above when it had a known reason), or an unknown
			// service: the method is not registered, nothing ran.
			if ev.Reason == "" && grpcUnknownMethod(ev.GRPCMessage) {
				return by(kindGRPCUnknown, HandlerMissing, detail)
			}
			if ev.Reason == "" {
				return by(kindA2ANotHere, HandlerMissing, detail)
			}
			return by(kindAnswer, AgentError, detail)
		case codes.Unauthenticated, codes.PermissionDenied:
			return by(kindAuth, AuthRequired, detail)
		case codes.DeadlineExceeded:
			return seen(Timeout, detail) // ambiguous once the request was written
		}
		if ev.NamesTask && (ev.GRPCCode == codes.Internal || ev.GRPCCode == codes.Unknown) {
			// Only a handler that parsed the request knows the random id it asked for.
			return by(kindAnswer, Served, detail+" (the message names the task looked up: a handler's TaskNotFound)")
		}
		if o, ok := grpcOutcomes[ev.GRPCCode]; ok && (o == AgentError || o == Served) {
			return by(kindAnswer, o, detail)
		} else if ok && o != Refused {
			return seen(o, detail)
		}
		return seen(Ambiguous, detail+" (from the server)")
	}
	if strings.HasPrefix(ev.Body, "HTTP/1.") {
		// The server's first bytes on the connection (GRPCCall.Fill) were an HTTP/1.x
		// status line, to the HTTP/2 preface or the TLS ClientHello: however grpc-go
		// words the failure, an HTTP/1.x server answered before any gRPC request.
		return by(kindFraming, WrongBinding, detail+": an HTTP/1.x server answered ("+clipLine(ev.Body)+")")
	}
	if rest, ok := strings.CutPrefix(ev.GRPCMessage, grpcHTTPStatus); ok {
		return grpcOverHTTP(ev, rest, detail)
	}
	if strings.Contains(ev.GRPCMessage, "received unexpected content-type") {
		return by(kindFraming, WrongBinding, detail)
	}
	// grpc-go made the status up client-side: a dial, TLS or preface failure, or the
	// connection lost. Its text names the cause; Classify makes it Ambiguous once the
	// request was on the wire.
	if ev.GRPCCode == codes.Unavailable || ev.GRPCCode == codes.Internal || ev.GRPCCode == codes.Unknown {
		if o, ok := outcomeFromText(ev.GRPCMessage); ok {
			return seen(o, detail)
		}
	}
	switch o := grpcOutcomes[ev.GRPCCode]; {
	case ev.GRPCCode == codes.DeadlineExceeded:
		return seen(Timeout, detail)
	case ev.GRPCCode == codes.Unavailable:
		return seen(Refused, detail)
	case o == Ambiguous:
		return seen(Malformed, detail)
	case o != "":
		return seen(o, detail)
	}
	return seen(Malformed, detail)
}

// grpcOverHTTP classifies grpc-go's report of an HTTP answer that is not gRPC: the HTTP
// status decides, as for the HTTP bindings (a route or auth answer proves no gRPC
// handler ran; anything else is another binding's or a proxy's answer).
func grpcOverHTTP(ev Evidence, rest, detail string) verdict {
	code, _ := strconv.Atoi(strings.SplitN(rest, " ", 2)[0])
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return by(kindAuth, AuthRequired, detail)
	case code >= 300 && code < 500 && code != http.StatusRequestTimeout, code == http.StatusNotImplemented:
		return by(kindFraming, WrongBinding, detail)
	case code >= 500:
		return seen(Ambiguous, detail)
	}
	return seen(WrongBinding, detail)
}

func classifyHTTP(ev Evidence) verdict {
	detail := fmt.Sprintf("HTTP %d", ev.HTTPStatus)
	if ev.ContentType != "" {
		detail += " " + ev.ContentType
	}
	switch s := ev.HTTPStatus; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return by(kindAuth, AuthRequired, detail)
	case s == http.StatusNotFound || s == http.StatusMethodNotAllowed:
		return by(kindHTTPNotHere, NotFound, detail)
	case s == http.StatusUnsupportedMediaType:
		return by(kindHTTPNotHere, WrongBinding, detail)
	case s == http.StatusNotImplemented && ev.Reason == "":
		// A web server that implements no such method (a plain server's 501 page, or
		// google.rpc UNIMPLEMENTED without ErrorInfo): no A2A handler ran there.
		if ev.Framing == ev.Binding && ev.Binding != "" {
			return by(kindHTTPNotHere, HandlerMissing, detail+": not implemented")
		}
		return by(kindHTTPNotHere, NotFound, detail+": not implemented by the server at this URL")
	case s == http.StatusNotImplemented:
		return by(kindAnswer, AgentError, detail+" "+ev.Reason) // an A2A handler refused the operation
	case s == http.StatusBadRequest && plaintextToTLS(ev.Body):
		return by(kindTLSRefusal, TLSMismatch, detail+": plaintext HTTP sent to a TLS server")
	case s == http.StatusRequestTimeout:
		return by(kindHTTPNotHere, Timeout, detail)
	case s == http.StatusGatewayTimeout:
		return seen(Timeout, detail)
	case s >= 300 && s < 400:
		return by(kindHTTPNotHere, NotFound, detail+": a redirect, nothing is served at this exact URL")
	case s >= 500:
		return seen(Ambiguous, detail)
	case s >= 400:
		return by(kindAnswer, AgentError, detail)
	}
	return seen(Served, detail)
}

// ClassifyError decides the outcome of a transport failure: an error from net, crypto/tls
// or net/http, or the text of one. sent reports that the request was fully written.
func ClassifyError(err error, sent bool) (Outcome, string) {
	if err == nil {
		return Served, ""
	}
	detail := err.Error()
	if sent {
		// Once the request was fully written, a transport failure never proves that it
		// reached no handler, whatever its text says (an agent may execute the request
		// and then answer garbage, a malformed status line or raw HTTP/2 bytes).
		o, _ := ClassifyError(err, false)
		return Ambiguous, fmt.Sprintf("after the request was written: %s (%s)", detail, o)
	}
	var (
		dnsErr   *net.DNSError
		certErr  *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		recErr   tls.RecordHeaderError
		netErr   net.Error
		alertErr tls.AlertError
	)
	switch {
	case errors.Is(err, addr.ErrRefusedAddress):
		return Blocked, detail // the dial policy refused it: nothing was sent
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		if sent {
			return Ambiguous, "no answer before the deadline after the request was sent: " + detail
		}
		return Timeout, detail
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused, detail
	case errors.As(err, &dnsErr), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return Unreachable, detail
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &hostErr),
		errors.As(err, &recErr), errors.As(err, &alertErr):
		return TLSMismatch, detail
	case errors.As(err, &netErr) && netErr.Timeout():
		if sent {
			return Ambiguous, detail
		}
		return Timeout, detail
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		if sent {
			return Ambiguous, "connection closed after the request was sent: " + detail
		}
		return Malformed, detail
	}
	if o, ok := outcomeFromText(detail); ok {
		return o, detail
	}
	if sent {
		return Ambiguous, detail
	}
	return Malformed, detail
}

// textOutcomes recognises failures that libraries report only as text (grpc-go's
// UNAVAILABLE messages, net/http's protocol errors), in order.
var textOutcomes = []struct {
	fragment string
	outcome  Outcome
}{
	{"connection refused", Refused},
	{"no such host", Unreachable},
	{"no suitable address found", Unreachable}, // a name Go will not resolve, e.g. .onion
	{"network is unreachable", Unreachable},
	{"no route to host", Unreachable},
	{"server gave HTTP response to HTTPS client", TLSMismatch},
	{"first record does not look like a TLS handshake", TLSMismatch},
	{"tls: ", TLSMismatch},
	{"x509: ", TLSMismatch},
	{"authentication handshake failed", TLSMismatch},
	{"looked like an HTTP/1.1 header", WrongBinding}, // HTTP/1 server on a gRPC URL
	{"error reading server preface", Malformed},      // neither HTTP/2 nor HTTP/1.1 (or TLS spoken to plaintext)
	{"http2: frame too large", Malformed},
	{`malformed HTTP response "\x00\x00`, WrongBinding}, // an HTTP/2 frame: HTTP/1 client on an h2c (gRPC) port
	{"malformed HTTP response", Malformed},
	{"malformed HTTP status code", Malformed},
	{"connection reset by peer", Malformed}, // a peer that hangs up on the first bytes
	{"broken pipe", Malformed},
	{"i/o timeout", Timeout},
	{"deadline exceeded", Timeout},
	{"too many colons", Unreachable},
}

func outcomeFromText(s string) (Outcome, bool) {
	ls := strings.ToLower(s)
	for _, t := range textOutcomes {
		if strings.Contains(ls, strings.ToLower(t.fragment)) {
			return t.outcome, true
		}
	}
	return "", false
}

// clipLine is the first line of s, without control characters.
func clipLine(s string) string {
	s, _, _ = strings.Cut(s, "\r")
	s, _, _ = strings.Cut(s, "\n")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
