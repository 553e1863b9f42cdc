package delegate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/wire"
)

// maxCapture bounds how much of an answer body is kept to read an error object from.
const maxCapture = 16 << 10

// MaxAnswerBytes bounds the body of a unary answer (and of any error answer): a2a-go's
// transports read whatever arrives, so a longer body fails the call with an error
// naming this limit instead of growing memory without end. The handler answered, so
// the call stops there (ErrAgent), as for any answer the client cannot read. Streams
// are not bounded in length (the call's context and WithAttemptTimeout bound them in
// time); a2a-go bounds each of their events to 10 MiB.
const MaxAnswerBytes = 16 << 20

// errAnswerTooLarge is the read error of an answer body over MaxAnswerBytes.
var errAnswerTooLarge = fmt.Errorf("answer body over the %d-byte limit", MaxAnswerBytes)

// recorder collects the wire evidence of one attempt. It travels in the attempt's
// context, under a2a-go's transports, which lose most of it in their errors.
type recorder struct {
	mu          sync.Mutex
	sent        bool
	httpStatus  int
	contentType string
	body        []byte
	netErr      error
	grpc        bool
	grpcStatus  *status.Status
	call        wire.GRPCCall // gRPC: request headers sent, response headers or trailers arrived
	timedOut    bool          // the attempt's own bound cancelled it
	location    string        // the Location of a 3xx answer (never followed)
}

// redirectNote names where a 3xx answer pointed, for the attempt's detail: the call did
// not follow it, so nothing was sent there.
func (r *recorder) redirectNote() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.httpStatus < 300 || r.httpStatus >= 400 {
		return ""
	}
	if r.location == "" {
		return "; no Location given; not followed"
	}
	return fmt.Sprintf("; it pointed to %q; not followed, nothing was sent there", clip(r.location))
}

func (r *recorder) markTimedOut() {
	r.mu.Lock()
	r.timedOut = true
	r.mu.Unlock()
}

func (r *recorder) isTimedOut() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.timedOut
}

type recorderKey struct{}

func withRecorder(ctx context.Context, r *recorder) context.Context {
	if r != nil {
		ctx = wire.WithGRPCCall(ctx, &r.call) // wire.GRPCStats records the gRPC transport's part
	}
	return context.WithValue(ctx, recorderKey{}, r)
}

func recorderFrom(ctx context.Context) *recorder {
	r, _ := ctx.Value(recorderKey{}).(*recorder)
	return r
}

// resetAnswer forgets the answer recorded so far, before the same request goes again
// (mediaTypeTransport after a 415).
func (r *recorder) resetAnswer() {
	r.mu.Lock()
	r.httpStatus, r.contentType, r.body = 0, "", nil
	r.mu.Unlock()
}

func (r *recorder) markSent() {
	r.mu.Lock()
	r.sent = true
	r.mu.Unlock()
}

func (r *recorder) setNetErr(err error) {
	r.mu.Lock()
	if r.netErr == nil {
		r.netErr = err
	}
	r.mu.Unlock()
}

// evidence assembles what the attempt saw; callErr is what a2a-go returned.
func (r *recorder) evidence(binding a2a.TransportProtocol, version string, callErr error) wire.Evidence {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timedOut {
		// What the transports saw after the cancellation (a gRPC CANCELLED, a 200 whose
		// stream never produced an event) is our own doing: the evidence is the deadline.
		return wire.Evidence{Binding: binding, Version: version, Sent: r.sent || r.call.Sent(), Err: context.DeadlineExceeded}
	}
	ev := wire.Evidence{Binding: binding, Version: version, Sent: r.sent || r.call.Sent(), Answered: r.httpStatus != 0,
		HTTPStatus: r.httpStatus, ContentType: r.contentType, Err: r.netErr}
	if r.grpc && r.grpcStatus != nil {
		ev.GRPC = true
		r.call.Fill(&ev)
		if ev.Err == nil {
			ev.Err = r.grpcStatus.Err()
		}
		wire.FillGRPC(&ev, r.grpcStatus)
	}
	if r.httpStatus != 0 && len(r.body) > 0 {
		ev.Body = string(r.body[:min(len(r.body), 512)])
		ans := wire.ReadAnswer(r.contentType, r.body)
		if ans.Framing == wire.Unrecognised && r.httpStatus < 300 {
			// A success body a2a-go read (or cut) itself: not an answer to judge by shape.
			ans.Framing = ""
		}
		ans.Fill(&ev)
	}
	if ev.Err == nil && ev.HTTPStatus == 0 && !ev.GRPC {
		// No wire evidence at all (for example a URL the transport could not use): the
		// call error is all there is.
		ev.Err = callErr
	}
	return ev
}

// recordingTransport is the http.RoundTripper under a2a-go's HTTP transports: it
// records the status, content type, the transport error, whether the request was fully
// written (httptrace WroteRequest) and the first bytes of the answer.
type recordingTransport struct {
	base http.RoundTripper
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := recorderFrom(req.Context())
	if rec == nil {
		return t.base.RoundTrip(req)
	}
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			rec.markSent()
		}
	}}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		rec.setNetErr(err)
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Accept")); mt != "text/event-stream" || resp.StatusCode >= http.StatusBadRequest {
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: MaxAnswerBytes}
	}
	rec.mu.Lock()
	rec.sent = true // an answer arrived, so the request went out
	rec.httpStatus = resp.StatusCode
	rec.contentType = resp.Header.Get("Content-Type")
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		rec.location = resp.Header.Get("Location")
	}
	rec.mu.Unlock()
	if resp.StatusCode >= http.StatusBadRequest {
		// a2a-go v2.3.1 reads an error body only when its content type starts with
		// application/json; a2a-js answers application/a2a+json. Keep the start of every
		// error body here so that its ErrorInfo reason still reaches the classifier.
		head, err := io.ReadAll(io.LimitReader(resp.Body, maxCapture))
		rec.mu.Lock()
		rec.body = append(rec.body, head...)
		if err != nil && rec.netErr == nil {
			rec.netErr = err
		}
		rec.mu.Unlock()
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
		return resp, nil
	}
	resp.Body = &captureBody{ReadCloser: resp.Body, rec: rec}
	return resp, nil
}

// limitedBody fails with errAnswerTooLarge once more than left bytes arrived.
type limitedBody struct {
	io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		if n, err := b.ReadCloser.Read(one[:]); n > 0 {
			return 0, errAnswerTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// captureBody keeps the first maxCapture bytes of an answer and a read failure.
type captureBody struct {
	io.ReadCloser
	rec *recorder
}

func (b *captureBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.rec.mu.Lock()
	if room := maxCapture - len(b.rec.body); room > 0 && n > 0 {
		b.rec.body = append(b.rec.body, p[:min(n, room)]...)
	}
	// An answer over MaxAnswerBytes arrived whole as far as the wire goes: it is an answer
	// the client could not read (like an SSE event over a2a-go's bound), not a cut one.
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errAnswerTooLarge) && b.rec.netErr == nil {
		b.rec.netErr = err
	}
	b.rec.mu.Unlock()
	return n, err
}

// gRPC: interceptors record the status before a2a-go maps it; a stats handler records
// that the request headers went out on a transport.

func unaryRecorder(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	err := invoker(ctx, method, req, reply, cc, opts...)
	if rec := recorderFrom(ctx); rec != nil && err != nil {
		rec.setGRPC(err)
	}
	return err
}

func streamRecorder(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(ctx, desc, cc, method, opts...)
	rec := recorderFrom(ctx)
	if rec == nil {
		return cs, err
	}
	if err != nil {
		rec.setGRPC(err)
		return nil, err
	}
	return &recordingStream{ClientStream: cs, rec: rec}, nil
}

type recordingStream struct {
	grpc.ClientStream
	rec *recorder
}

func (s *recordingStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil && !errors.Is(err, io.EOF) {
		s.rec.setGRPC(err)
	}
	return err
}

func (s *recordingStream) SendMsg(m any) error {
	err := s.ClientStream.SendMsg(m)
	if err != nil && !errors.Is(err, io.EOF) {
		s.rec.setGRPC(err)
	}
	return err
}

func (r *recorder) setGRPC(err error) {
	st, ok := status.FromError(err)
	if !ok {
		r.setNetErr(err)
		return
	}
	r.mu.Lock()
	if !r.grpc {
		r.grpc = true
		r.grpcStatus = st
	}
	r.mu.Unlock()
}
