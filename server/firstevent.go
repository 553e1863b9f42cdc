package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// firstEvent makes an error that a streaming method meets before its first event a
// plain error answer rather than an SSE stream holding one error event: a2a-go's
// JSON-RPC and HTTP+JSON handlers send the SSE headers before they know (SubscribeToTask
// on a terminal task, an unknown task, a refused message). The 200 text/event-stream
// status is held until the first event: an error event becomes the JSON-RPC error
// response (HTTP 200, application/json) or the HTTP+JSON google.rpc.Status with its
// HTTP status; any other first event (or comment) starts the stream as it was. A
// client that reads one error from the first event is unaffected; one that checks the
// status or content type before reading a stream now sees the error.
func firstEvent(jsonrpc bool, next http.Handler) http.Handler {
	return firstEventAs(jsonrpc, "application/json", next)
}

// firstEventAs is firstEvent answering the plain error with content type errType: v0.3
// HTTP+JSON errors are application/problem+json, as a2a-go's v0.3 handler answers its
// other errors (the media type tells a v0.3 answer from a 1.0 one).
func firstEventAs(jsonrpc bool, errType string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fw := &firstEventWriter{ResponseWriter: w, jsonrpc: jsonrpc, errType: errType}
		next.ServeHTTP(fw, r)
		if fw.held && !fw.decided {
			fw.commit()
		}
	})
}

// maxFirstEvent bounds the first SSE event held back; a longer one starts the stream.
const maxFirstEvent = 1 << 20

type firstEventWriter struct {
	http.ResponseWriter
	jsonrpc bool
	errType string // the content type of a plain error answer
	held    bool   // a 200 text/event-stream status is held back
	decided bool   // the held status was written, or replaced by a plain error
	plain   bool   // the answer is a plain error: later writes are dropped
	buf     bytes.Buffer
}

// Unwrap lets http.ResponseController reach the connection.
func (w *firstEventWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// WriteHeader holds a 200 text/event-stream status until the first event.
func (w *firstEventWriter) WriteHeader(code int) {
	if !w.held && !w.decided && code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		w.held = true
		return
	}
	w.decided = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *firstEventWriter) Write(p []byte) (int, error) {
	switch {
	case w.plain:
		return len(p), nil
	case !w.held || w.decided:
		return w.ResponseWriter.Write(p)
	}
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte("\n\n")) || w.buf.Len() > maxFirstEvent {
		w.decide()
	}
	return len(p), nil
}

// Flush passes a flush on once the stream has started.
func (w *firstEventWriter) Flush() {
	if w.held && !w.decided {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// decide answers the held first event: a plain error or the stream it starts.
func (w *firstEventWriter) decide() {
	data, status, ok := errorEvent(w.buf.Bytes(), w.jsonrpc)
	if !ok {
		w.commit()
		return
	}
	w.decided, w.plain = true, true
	h := w.Header()
	h.Del("Cache-Control")
	h.Del("X-Accel-Buffering")
	h.Set("Content-Type", w.errType)
	w.ResponseWriter.WriteHeader(status)
	_, _ = w.ResponseWriter.Write(append(data, '\n'))
}

// commit starts the stream with the held status and bytes.
func (w *firstEventWriter) commit() {
	w.decided = true
	w.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = w.ResponseWriter.Write(w.buf.Bytes())
	w.buf.Reset()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// errorEvent reads the data of the first SSE event and reports whether it is an error:
// a JSON-RPC response with "error" (answered with HTTP 200), or an HTTP+JSON
// {"error":{"code":<HTTP status>,...}} (answered with that status).
func errorEvent(event []byte, jsonrpc bool) (data []byte, status int, ok bool) {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(event))
	sc.Buffer(nil, maxFirstEvent+1)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			break
		}
		if v, found := strings.CutPrefix(line, "data:"); found {
			lines = append(lines, strings.TrimPrefix(v, " "))
		}
	}
	if len(lines) == 0 {
		return nil, 0, false
	}
	data = []byte(strings.Join(lines, "\n"))
	var env struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &env) != nil || env.Error == nil || env.Result != nil {
		return nil, 0, false
	}
	if jsonrpc {
		return data, http.StatusOK, true
	}
	if env.Error.Code < 400 || env.Error.Code > 599 {
		return data, http.StatusInternalServerError, true
	}
	return data, env.Error.Code, true
}
