package delegate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2abind/a2abind/internal/restv03"
	"github.com/a2abind/a2abind/wire"
)

// newRESTV03Transport is the client of the v0.3 HTTP+JSON binding at url, spoken in
// dialect d (restv03.DialectAt: the v0.3 specification's proto JSON under {url}/v1, as
// @a2a-js/sdk 0.3 and a2a-go v2.4.0 serve it, or a2a-go v2.3.1's snake_case legacy JSON
// at {url}). a2a-go's v0.3 gRPC client does the type conversion over a connection that
// carries each call as the binding's HTTP request, with the dialect's body codec.
func newRESTV03Transport(url string, d restv03.Dialect, client *http.Client) a2aclient.Transport {
	return a2agrpcv0.NewGRPCTransportFromClient(a2apbv0.NewA2AServiceClient(&restV03Conn{base: strings.TrimSuffix(url, "/") + d.Prefix, dialect: d, client: client}))
}

// maxRESTV03Answer bounds a unary answer or one stream event (as maxAnswerBytes bounds
// the other bindings' answers).
const maxRESTV03Answer = 16 << 20

// restV03Conn carries the v0.3 gRPC client's calls as HTTP requests.
type restV03Conn struct {
	base    string // the interface's URL and the dialect's prefix
	dialect restv03.Dialect
	client  *http.Client
}

var _ grpc.ClientConnInterface = (*restV03Conn)(nil)

// route is the HTTP request of a call in dialect d: method, path under base, and
// whether the request proto is the body.
func route(d restv03.Dialect, method string, req proto.Message) (verb, path string, body bool, err error) {
	task := func(name string) string {
		id := strings.TrimPrefix(name, "tasks/")
		return "/tasks/" + url.PathEscape(id)
	}
	switch method {
	case a2apbv0.A2AService_SendMessage_FullMethodName:
		return http.MethodPost, "/message:send", true, nil
	case a2apbv0.A2AService_SendStreamingMessage_FullMethodName:
		return http.MethodPost, "/message:stream", true, nil
	case a2apbv0.A2AService_GetTask_FullMethodName:
		r := req.(*a2apbv0.GetTaskRequest)
		path = task(r.GetName())
		if n := r.GetHistoryLength(); n > 0 {
			path += "?historyLength=" + strconv.Itoa(int(n))
		}
		return http.MethodGet, path, false, nil
	case a2apbv0.A2AService_CancelTask_FullMethodName:
		return http.MethodPost, task(req.(*a2apbv0.CancelTaskRequest).GetName()) + ":cancel", false, nil
	case a2apbv0.A2AService_TaskSubscription_FullMethodName:
		return d.Subscribe, task(req.(*a2apbv0.TaskSubscriptionRequest).GetName()) + ":subscribe", false, nil
	case a2apbv0.A2AService_ListTasks_FullMethodName:
		r := req.(*a2apbv0.ListTasksRequest)
		q := url.Values{}
		if r.GetContextId() != "" {
			q.Set("contextId", r.GetContextId())
		}
		if r.GetPageToken() != "" {
			q.Set("pageToken", r.GetPageToken())
		}
		if r.GetPageSize() > 0 {
			q.Set("pageSize", strconv.Itoa(int(r.GetPageSize())))
		}
		path = "/tasks"
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
		return http.MethodGet, path, false, nil
	}
	return "", "", false, status.Errorf(codes.Unimplemented, "%s is not carried over the v0.3 HTTP+JSON binding by a2abind", method)
}

// do sends the HTTP request of a call, with the call's outgoing metadata as headers,
// and returns the answer when its status is 2xx (a2a-js answers message:send with 201).
func (c *restV03Conn) do(ctx context.Context, method string, req proto.Message, stream bool) (*http.Response, error) {
	verb, path, withBody, err := route(c.dialect, method, req)
	if err != nil {
		return nil, err
	}
	var body io.Reader
	if withBody {
		b, err := c.dialect.Marshal(req)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	hr, err := http.NewRequestWithContext(ctx, verb, c.base+path, body)
	if err != nil {
		return nil, err
	}
	if withBody {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("Accept", "application/json")
	if stream {
		hr.Header.Set("Accept", "text/event-stream")
	}
	md, _ := metadata.FromOutgoingContext(ctx)
	for k, vs := range md {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	resp, err := c.client.Do(hr)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, answerError(resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return resp, nil
}

// Invoke carries a unary call.
func (c *restV03Conn) Invoke(ctx context.Context, method string, args, reply any, _ ...grpc.CallOption) error {
	resp, err := c.do(ctx, method, args.(proto.Message), false)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRESTV03Answer+1))
	if err != nil {
		return err
	}
	if len(b) > maxRESTV03Answer {
		return fmt.Errorf("the answer is over %d bytes", maxRESTV03Answer)
	}
	if err := c.dialect.Unmarshal(b, reply.(proto.Message)); err != nil {
		return fmt.Errorf("the answer is not a v0.3 HTTP+JSON %T: %w", reply, err)
	}
	return nil
}

// NewStream carries a server-streaming call: the request goes out on CloseSend (after
// the one SendMsg), and each Server-Sent Event is one message.
func (c *restV03Conn) NewStream(ctx context.Context, _ *grpc.StreamDesc, method string, _ ...grpc.CallOption) (grpc.ClientStream, error) {
	return &restV03Stream{ctx: ctx, conn: c, method: method}, nil
}

type restV03Stream struct {
	ctx    context.Context
	conn   *restV03Conn
	method string
	req    proto.Message
	resp   *http.Response
	events *bufio.Scanner
}

func (s *restV03Stream) Header() (metadata.MD, error) { return metadata.MD{}, nil }
func (s *restV03Stream) Trailer() metadata.MD         { return metadata.MD{} }
func (s *restV03Stream) Context() context.Context     { return s.ctx }

func (s *restV03Stream) SendMsg(m any) error {
	s.req = m.(proto.Message)
	return nil
}

func (s *restV03Stream) CloseSend() error {
	resp, err := s.conn.do(s.ctx, s.method, s.req, true)
	if err != nil {
		return err
	}
	s.resp = resp
	s.events = bufio.NewScanner(resp.Body)
	s.events.Buffer(make([]byte, 0, 64<<10), maxRESTV03Answer)
	return nil
}

// RecvMsg reads the next event into m: io.EOF at the stream's end, the A2A error of an
// error event.
func (s *restV03Stream) RecvMsg(m any) error {
	if s.events == nil {
		return errors.New("the stream was not opened")
	}
	var data []byte
	for s.events.Scan() {
		line := s.events.Bytes()
		switch {
		case len(line) == 0 && len(data) > 0:
			return s.decode(data, m.(proto.Message))
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
			if len(data) > maxRESTV03Answer {
				s.resp.Body.Close()
				return fmt.Errorf("an event is over %d bytes", maxRESTV03Answer)
			}
		}
	}
	if len(data) > 0 {
		return s.decode(data, m.(proto.Message))
	}
	s.resp.Body.Close()
	if err := s.events.Err(); err != nil {
		return err
	}
	return io.EOF
}

func (s *restV03Stream) decode(data []byte, m proto.Message) error {
	if e, ok := wire.ParseFlatError(data); ok {
		s.resp.Body.Close()
		return a2aError(e)
	}
	return s.conn.dialect.Unmarshal(data, m)
}

// answerError is the error of a non-2xx answer: the A2A error its body names (a v0.3
// flat error, a2a-js; or a google.rpc.Status with an ErrorInfo, a2a-go's
// application/problem+json), else the HTTP status.
func answerError(code int, contentType string, body []byte) error {
	if a := wire.ReadAnswer(contentType, body); a.Flat || a.Reason != "" {
		return fmt.Errorf("HTTP %d: %w", code, a2aError(a))
	}
	return fmt.Errorf("HTTP %d %s", code, http.StatusText(code))
}

// a2aError is the a2a-go error of a v0.3 HTTP+JSON error body: the sentinel its A2A
// code or reason names (wire's A2A error table), InternalError for one it does not name.
func a2aError(e wire.Answer) error {
	base := a2a.ErrInternalError
	if row, ok := wire.ErrorOf(e); ok {
		base = row.Err
	}
	return a2a.NewError(base, e.Message)
}
