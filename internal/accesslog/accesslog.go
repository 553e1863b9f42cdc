// Package accesslog is the access log of `a2abind serve` and `a2abind guard`: one
// structured (log/slog) line per request with the binding, the A2A method, the HTTP
// status or the A2A error, the duration and the bytes each way. It never logs a body,
// a query string or a header value, so no message text and no credential reaches the log.
package accesslog

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// peek bounds how much of an answer body is kept to read the A2A error from (errors
// are short); methodPeek how much of a request body to read the JSON-RPC method from
// (clients write "method" among the first members; a method beyond it is not logged).
const (
	peek       = 4 << 10
	methodPeek = 512
)

// Message is the log message of every access log line.
const Message = "request"

// HTTP logs one line per request next serves, at Info. gRPC requests served on the
// HTTP port are logged here too (binding GRPC, the gRPC status as the error).
func HTTP(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		in := &countingBody{ReadCloser: r.Body}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = in
		}
		out := &recorder{ResponseWriter: w}
		defer func() {
			binding, method := classify(r, in.head[:in.kept])
			attrs := []slog.Attr{
				slog.String("binding", binding),
				slog.String("method", method),
				slog.String("http", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", out.statusCode()),
			}
			if e := answerError(binding, out, w.Header()); e != "" {
				attrs = append(attrs, slog.String("a2aError", e))
			}
			attrs = append(attrs,
				slog.Duration("duration", time.Since(start)),
				slog.Int64("bytesIn", in.n.Load()),
				slog.Int64("bytesOut", out.n),
				slog.String("peer", r.RemoteAddr))
			log.LogAttrs(r.Context(), slog.LevelInfo, Message, attrs...)
		}()
		next.ServeHTTP(out, r)
	})
}

// countingBody counts what the handler reads and keeps its first bytes.
type countingBody struct {
	io.ReadCloser
	n    atomic.Int64
	head [methodPeek]byte // written by the reading goroutine only; read after the handler
	kept int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.kept += copy(b.head[b.kept:], p[:n])
	b.n.Add(int64(n))
	return n, err
}

// recorder counts the answer's bytes, keeps its first bytes and its status, and passes
// Flush, full duplex and the rest through (Unwrap for http.ResponseController).
type recorder struct {
	http.ResponseWriter
	status int
	n      int64
	head   bytes.Buffer
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if room := peek - w.head.Len(); room > 0 {
		w.head.Write(p[:min(len(p), room)])
	}
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

func (w *recorder) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *recorder) statusCode() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// classify names the binding and the A2A method of a request: gRPC by content type,
// JSON-RPC by the envelope of its body, HTTP+JSON by its route; "" when none fits (the
// card, health, a path nothing serves).
func classify(r *http.Request, head []byte) (binding, method string) {
	if card.IsGRPCRequest(r) {
		return string(a2a.TransportProtocolGRPC), r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	}
	if r.Method == http.MethodPost {
		if m, ok := jsonrpcMethod(head); ok {
			return string(a2a.TransportProtocolJSONRPC), m
		}
	}
	if m := restMethod(r.Method, r.URL.Path); m != "" {
		return string(a2a.TransportProtocolHTTPJSON), m
	}
	return "", ""
}

// jsonrpcMethod reads the member "method" of the JSON-RPC request object head starts
// (a request's first bytes, so cheap on the hot path: read with jsontext, each value
// skipped, nothing copied but the method): top-level members only, in order. rpc
// reports a "jsonrpc" member before it. A method beyond head, or a head that is not
// such an object, gives "".
func jsonrpcMethod(head []byte) (method string, rpc bool) {
	d := jsontext.NewDecoder(bytes.NewBuffer(head), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if d.PeekKind() != '{' {
		return "", false
	}
	if _, err := d.ReadToken(); err != nil {
		return "", false
	}
	var buf [16]byte
	for d.PeekKind() == '"' {
		quoted, err := d.ReadValue()
		if err != nil {
			break
		}
		name, _ := jsontext.AppendUnquote(buf[:0], quoted) // before ReadValue reuses quoted's bytes
		v, err := d.ReadValue()                            // a value cut by the end of head is an error
		if err != nil {
			break
		}
		switch string(name) {
		case "jsonrpc":
			rpc = true
		case "method":
			if v.Kind() == '"' {
				t, _ := jsontext.AppendUnquote(nil, v)
				return string(t), true
			}
		}
	}
	return "", rpc
}

// restRoutes name the A2A method of an HTTP+JSON route by its verb and last path
// element (1.0 and v0.3 spellings).
var restRoutes = []struct {
	verb, suffix, method string
}{
	{http.MethodPost, "message:send", "SendMessage"},
	{http.MethodPost, "message:stream", "SendStreamingMessage"},
	{http.MethodPost, ":cancel", "CancelTask"},
	{"", ":subscribe", "SubscribeToTask"},
	{http.MethodGet, "/extendedagentcard", "GetExtendedAgentCard"},
	{http.MethodGet, "/v1/card", "GetExtendedAgentCard"},
	{http.MethodPost, "/pushnotificationconfigs", "CreateTaskPushNotificationConfig"},
	{http.MethodGet, "/pushnotificationconfigs", "ListTaskPushNotificationConfigs"},
	{http.MethodGet, "/tasks", "ListTasks"},
}

func restMethod(verb, path string) string {
	p := strings.ToLower(strings.TrimSuffix(path, "/"))
	for _, rt := range restRoutes {
		if (rt.verb == "" || rt.verb == verb) && strings.HasSuffix(p, rt.suffix) {
			return rt.method
		}
	}
	i := strings.LastIndex(p, "/tasks/")
	switch {
	case i < 0:
		return ""
	case strings.Contains(p[i+len("/tasks/"):], "/pushnotificationconfigs/"):
		if verb == http.MethodDelete {
			return "DeleteTaskPushNotificationConfig"
		}
		return "GetTaskPushNotificationConfig"
	case verb == http.MethodGet && !strings.Contains(p[i+len("/tasks/"):], "/"):
		return "GetTask"
	}
	return ""
}

// answerError is the A2A error an answer carries: the gRPC status name; else, read by
// wire.ReadAnswer (the body, or the first event of a stream), the ErrorInfo reason,
// else the JSON-RPC (or v0.3 flat) error code, else the google.rpc status. "" for a
// success.
func answerError(binding string, w *recorder, h http.Header) string {
	if binding == string(a2a.TransportProtocolGRPC) {
		if s := h.Get("Grpc-Status"); s != "" && s != "0" {
			n, err := strconv.ParseUint(s, 10, 32)
			if err != nil {
				return s
			}
			return codes.Code(n).String()
		}
		return ""
	}
	a := wire.ReadAnswer(h.Get("Content-Type"), w.head.Bytes()) // the one reader of A2A answers
	switch {
	case a.Result || a.Framing == "" || a.Framing == wire.Unrecognised:
		return ""
	case a.Reason != "":
		return a.Reason
	case binding == string(a2a.TransportProtocolJSONRPC) || a.Flat:
		return strconv.Itoa(a.Code)
	case a.Status != "":
		return a.Status
	}
	return ""
}

// GRPC is a stats.Handler (grpc.StatsHandler) logging one line per RPC on a gRPC
// listener: binding GRPC, the method, the status, duration and wire bytes.
func GRPC(log *slog.Logger) stats.Handler { return grpcLog{log} }

type grpcLog struct{ log *slog.Logger }

type rpcKey struct{}

type rpcInfo struct {
	method  string
	start   time.Time
	in, out atomic.Int64
}

func (g grpcLog) TagRPC(ctx context.Context, i *stats.RPCTagInfo) context.Context {
	return context.WithValue(ctx, rpcKey{}, &rpcInfo{method: i.FullMethodName, start: time.Now()})
}

func (g grpcLog) HandleRPC(ctx context.Context, s stats.RPCStats) {
	ri, _ := ctx.Value(rpcKey{}).(*rpcInfo)
	if ri == nil {
		return
	}
	switch s := s.(type) {
	case *stats.InPayload:
		ri.in.Add(int64(s.WireLength))
	case *stats.OutPayload:
		ri.out.Add(int64(s.WireLength))
	case *stats.End:
		attrs := []slog.Attr{
			slog.String("binding", string(a2a.TransportProtocolGRPC)),
			slog.String("method", ri.method[strings.LastIndexByte(ri.method, '/')+1:]),
			slog.String("service", strings.Trim(ri.method[:max(0, strings.LastIndexByte(ri.method, '/'))], "/")),
		}
		if code := status.Code(s.Error); code != 0 {
			attrs = append(attrs, slog.String("a2aError", code.String()))
		}
		attrs = append(attrs, slog.Duration("duration", s.EndTime.Sub(ri.start)),
			slog.Int64("bytesIn", ri.in.Load()), slog.Int64("bytesOut", ri.out.Load()))
		g.log.LogAttrs(ctx, slog.LevelInfo, Message, attrs...)
	}
}

func (grpcLog) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (grpcLog) HandleConn(context.Context, stats.ConnStats) {}
