package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2abind/a2abind/internal/restv03"
)

// The v0.3 HTTP+JSON binding as the v0.3 specification defines it and real v0.3 clients
// (@a2a-js/sdk 0.3.x) speak it: the gRPC transcoding of a2a.v1.A2AService (the
// google.api.http rules of the v0.3 proto), at {url}/v1/message:send,
// {url}/v1/tasks/{id}, ... with proto-JSON bodies ({"message":{"content":[{"text":..}],
// "role":"ROLE_USER"}}) and Server-Sent Events of proto-JSON StreamResponse. a2a-go
// v2.3.1's v0.3 REST handler (a2av0.NewRESTHandler, served unprefixed for a2a-go's own
// v0.3 client) speaks neither those paths nor those bodies (a2a-go #370). Each route
// calls a2a-go's v0.3 gRPC handler in process, so the request handler, the task store
// and the interceptors are the same as on every other binding.

// restV03Routes serves the transcoded routes under /v1/ and hands everything else to
// legacy (a2a-go's own v0.3 REST handler).
func restV03Routes(handler a2asrv.RequestHandler, legacy http.Handler) http.Handler {
	g := &restV03{h: a2agrpcv0.NewHandler(handler)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/message:send", g.send)
	mux.HandleFunc("POST /v1/message:stream", g.stream)
	mux.HandleFunc("GET /v1/tasks", g.list)
	mux.HandleFunc("GET /v1/tasks/{rest...}", g.getTasks)
	mux.HandleFunc("POST /v1/tasks/{rest...}", g.postTasks)
	mux.HandleFunc("DELETE /v1/tasks/{id}/pushNotificationConfigs/{config}", g.deletePush)
	mux.HandleFunc("GET /v1/card", g.card)
	mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeV03Error(w, status.Errorf(codes.NotFound, "no v0.3 HTTP+JSON route %s %s", r.Method, r.URL.Path))
	})
	mux.Handle("/", legacy)
	return mux
}

type restV03 struct{ h *a2agrpcv0.Handler }

// marshalV03 writes m as the binding's proto JSON (restv03.Marshal).
func marshalV03(m proto.Message) ([]byte, error) { return restv03.Marshal(m) }

// call runs one unary method of the v0.3 gRPC handler with the request's headers as
// incoming metadata and writes its answer as proto JSON.
func call[Req, Resp proto.Message](w http.ResponseWriter, r *http.Request, req Req, body bool, method func(context.Context, Req) (Resp, error)) {
	if body && !decodeV03(w, r, req) {
		return
	}
	ctx, ts := v03Context(r)
	resp, err := method(ctx, req)
	if err != nil {
		writeV03Error(w, err)
		return
	}
	b, err := marshalV03(resp)
	if err != nil {
		writeV03Error(w, status.Errorf(codes.Internal, "encode the answer: %v", err))
		return
	}
	ts.copyTo(w.Header())
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func decodeV03(w http.ResponseWriter, r *http.Request, m proto.Message) bool {
	b, err := io.ReadAll(r.Body)
	if err == nil {
		err = restv03.Unmarshal(b, m)
	}
	if err != nil {
		writeV03Error(w, status.Errorf(codes.InvalidArgument, "the body is not a proto-JSON %s: %v", m.ProtoReflect().Descriptor().Name(), err))
		return false
	}
	return true
}

func (g *restV03) send(w http.ResponseWriter, r *http.Request) {
	call(w, r, &a2apbv0.SendMessageRequest{}, true, g.h.SendMessage)
}

func (g *restV03) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := &a2apbv0.ListTasksRequest{ContextId: q.Get("contextId"), PageToken: q.Get("pageToken"), IncludeArtifacts: q.Get("includeArtifacts") == "true"}
	req.PageSize, req.HistoryLength = queryInt(q.Get("pageSize")), queryInt(q.Get("historyLength"))
	call(w, r, req, false, g.h.ListTasks)
}

func (g *restV03) card(w http.ResponseWriter, r *http.Request) {
	call(w, r, &a2apbv0.GetAgentCardRequest{}, false, g.h.GetAgentCard)
}

func queryInt(s string) int32 {
	n, _ := strconv.ParseInt(s, 10, 32)
	return int32(n)
}

// getTasks serves GET /v1/tasks/{id}, /v1/tasks/{id}:subscribe,
// /v1/tasks/{id}/pushNotificationConfigs and /v1/tasks/{id}/pushNotificationConfigs/{config}.
func (g *restV03) getTasks(w http.ResponseWriter, r *http.Request) {
	rest := r.PathValue("rest")
	id, config, sub := splitTaskPath(rest)
	switch {
	case sub == "" && !strings.Contains(id, ":"):
		call(w, r, &a2apbv0.GetTaskRequest{Name: "tasks/" + id, HistoryLength: queryInt(r.URL.Query().Get("historyLength"))}, false, g.h.GetTask)
	case sub == "" && strings.HasSuffix(id, ":subscribe"):
		g.serveStream(w, r, func(s grpc.ServerStreamingServer[a2apbv0.StreamResponse]) error {
			return g.h.TaskSubscription(&a2apbv0.TaskSubscriptionRequest{Name: "tasks/" + strings.TrimSuffix(id, ":subscribe")}, s)
		})
	case sub == "pushNotificationConfigs" && config == "":
		call(w, r, &a2apbv0.ListTaskPushNotificationConfigRequest{Parent: "tasks/" + id}, false, g.h.ListTaskPushNotificationConfig)
	case sub == "pushNotificationConfigs":
		call(w, r, &a2apbv0.GetTaskPushNotificationConfigRequest{Name: "tasks/" + id + "/pushNotificationConfigs/" + config}, false, g.h.GetTaskPushNotificationConfig)
	default:
		writeV03Error(w, status.Errorf(codes.NotFound, "no v0.3 HTTP+JSON route GET /v1/tasks/%s", rest))
	}
}

// postTasks serves POST /v1/tasks/{id}:cancel and /v1/tasks/{id}/pushNotificationConfigs.
func (g *restV03) postTasks(w http.ResponseWriter, r *http.Request) {
	rest := r.PathValue("rest")
	id, config, sub := splitTaskPath(rest)
	switch {
	case sub == "" && strings.HasSuffix(id, ":cancel"):
		req := &a2apbv0.CancelTaskRequest{}
		if r.ContentLength != 0 && !decodeV03(w, r, req) {
			return
		}
		req.Name = "tasks/" + strings.TrimSuffix(id, ":cancel")
		call(w, r, req, false, g.h.CancelTask)
	case sub == "pushNotificationConfigs" && config == "":
		cfg := &a2apbv0.TaskPushNotificationConfig{}
		if !decodeV03(w, r, cfg) {
			return
		}
		call(w, r, &a2apbv0.CreateTaskPushNotificationConfigRequest{Parent: "tasks/" + id, Config: cfg}, false, g.h.CreateTaskPushNotificationConfig)
	default:
		writeV03Error(w, status.Errorf(codes.NotFound, "no v0.3 HTTP+JSON route POST /v1/tasks/%s", rest))
	}
}

func (g *restV03) deletePush(w http.ResponseWriter, r *http.Request) {
	name := "tasks/" + r.PathValue("id") + "/pushNotificationConfigs/" + r.PathValue("config")
	call(w, r, &a2apbv0.DeleteTaskPushNotificationConfigRequest{Name: name}, false, g.h.DeleteTaskPushNotificationConfig)
}

// splitTaskPath splits "{id}", "{id}/{sub}" and "{id}/{sub}/{config}".
func splitTaskPath(rest string) (id, config, sub string) {
	parts := strings.SplitN(rest, "/", 3)
	id = parts[0]
	if len(parts) > 1 {
		sub = parts[1]
	}
	if len(parts) > 2 {
		config = parts[2]
	}
	return id, config, sub
}

func (g *restV03) stream(w http.ResponseWriter, r *http.Request) {
	req := &a2apbv0.SendMessageRequest{}
	if !decodeV03(w, r, req) {
		return
	}
	g.serveStream(w, r, func(s grpc.ServerStreamingServer[a2apbv0.StreamResponse]) error {
		return g.h.SendStreamingMessage(req, s)
	})
}

// serveStream runs a streaming method with each StreamResponse written as one SSE
// event of proto JSON. An error before the first event is an HTTP error; after it, an
// SSE event carrying the error.
func (g *restV03) serveStream(w http.ResponseWriter, r *http.Request, run func(grpc.ServerStreamingServer[a2apbv0.StreamResponse]) error) {
	ctx, ts := v03Context(r)
	s := &sseStream{ctx: ctx, w: w, ts: ts}
	err := run(s)
	switch {
	case err == nil:
	case !s.started:
		writeV03Error(w, err)
	default:
		b, _ := json.Marshal(v03ErrorBody(err))
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
	}
}

// sseStream is the grpc.ServerStreamingServer the v0.3 gRPC handler writes its events
// to, writing each as a Server-Sent Event.
type sseStream struct {
	grpc.ServerStream
	ctx     context.Context
	w       http.ResponseWriter
	ts      *v03TransportStream
	started bool
}

func (s *sseStream) Context() context.Context     { return s.ctx }
func (s *sseStream) SetHeader(metadata.MD) error  { return nil }
func (s *sseStream) SendHeader(metadata.MD) error { return nil }
func (s *sseStream) SetTrailer(metadata.MD)       {}
func (s *sseStream) SendMsg(m any) error          { return s.Send(m.(*a2apbv0.StreamResponse)) }
func (s *sseStream) RecvMsg(any) error            { return io.EOF }

// Send writes one event.
func (s *sseStream) Send(m *a2apbv0.StreamResponse) error {
	b, err := marshalV03(m)
	if err != nil {
		return status.Errorf(codes.Internal, "encode an event: %v", err)
	}
	if !s.started {
		s.started = true
		s.ts.copyTo(s.w.Header())
		s.w.Header().Set("Content-Type", "text/event-stream")
		s.w.Header().Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	return http.NewResponseController(s.w).Flush()
}

// v03Context is the request's context with its headers as incoming gRPC metadata (for
// a2a-go's service parameters) and a transport stream that keeps what the handler sets
// as headers and trailers (the activated extensions).
func v03Context(r *http.Request) (context.Context, *v03TransportStream) {
	md := metadata.MD{}
	for k, vs := range r.Header {
		md[strings.ToLower(k)] = vs
	}
	ts := &v03TransportStream{md: metadata.MD{}}
	ctx := metadata.NewIncomingContext(r.Context(), md)
	return grpc.NewContextWithServerTransportStream(ctx, ts), ts
}

type v03TransportStream struct{ md metadata.MD }

func (t *v03TransportStream) Method() string { return "" }
func (t *v03TransportStream) SetHeader(md metadata.MD) error {
	t.md = metadata.Join(t.md, md)
	return nil
}
func (t *v03TransportStream) SendHeader(md metadata.MD) error { return t.SetHeader(md) }
func (t *v03TransportStream) SetTrailer(md metadata.MD) error { return t.SetHeader(md) }

func (t *v03TransportStream) copyTo(h http.Header) {
	for k, vs := range t.md {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
}

// v03Errors maps the A2A ErrorInfo reason of a gRPC status to the A2A error code
// (the JSON-RPC code, which v0.3 HTTP+JSON clients read from the body's "code").
var v03Errors = map[string]int{
	"TASK_NOT_FOUND":                     -32001,
	"TASK_NOT_CANCELABLE":                -32002,
	"PUSH_NOTIFICATION_NOT_SUPPORTED":    -32003,
	"UNSUPPORTED_OPERATION":              -32004,
	"CONTENT_TYPE_NOT_SUPPORTED":         -32005,
	"INVALID_AGENT_RESPONSE":             -32006,
	"EXTENDED_AGENT_CARD_NOT_CONFIGURED": -32007,
	"PARSE_ERROR":                        -32700,
	"INVALID_REQUEST":                    -32600,
	"METHOD_NOT_FOUND":                   -32601,
	"INVALID_PARAMS":                     -32602,
}

// v03CodeErrors is the A2A error code of a status without an A2A reason (the
// transcoding layer's own refusals).
var v03CodeErrors = map[codes.Code]int{
	codes.InvalidArgument: -32602, // InvalidParams
	codes.NotFound:        -32601, // MethodNotFound: no such route
	codes.Unimplemented:   -32601,
}

// v03HTTPStatus maps a gRPC code to the HTTP status of the transcoded answer (the
// google.api.http mapping).
var v03HTTPStatus = map[codes.Code]int{
	codes.InvalidArgument:    http.StatusBadRequest,
	codes.FailedPrecondition: http.StatusBadRequest,
	codes.OutOfRange:         http.StatusBadRequest,
	codes.NotFound:           http.StatusNotFound,
	codes.AlreadyExists:      http.StatusConflict,
	codes.Aborted:            http.StatusConflict,
	codes.Unauthenticated:    http.StatusUnauthorized,
	codes.PermissionDenied:   http.StatusForbidden,
	codes.Unimplemented:      http.StatusNotImplemented,
	codes.Unavailable:        http.StatusServiceUnavailable,
	codes.DeadlineExceeded:   http.StatusGatewayTimeout,
	codes.ResourceExhausted:  http.StatusTooManyRequests,
	codes.Canceled:           499,
}

func v03ErrorBody(err error) restv03.ErrorBody {
	st := status.Convert(err)
	reason := errorInfoReason(st)
	code, ok := v03Errors[reason]
	if !ok {
		code, ok = v03CodeErrors[st.Code()]
	}
	if !ok {
		code = -32603 // InternalError
	}
	return restv03.ErrorBody{Code: code, Message: st.Message(), Reason: reason}
}

func writeV03Error(w http.ResponseWriter, err error) {
	httpStatus, ok := v03HTTPStatus[status.Code(err)]
	if !ok {
		httpStatus = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus)
	_ = json.NewEncoder(w).Encode(v03ErrorBody(err))
}

// errorInfoReason is the reason of the status's google.rpc.ErrorInfo, "" for none.
func errorInfoReason(st *status.Status) string {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}
