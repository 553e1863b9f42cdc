package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2abind/a2abind/internal/restv03"
	"github.com/a2abind/a2abind/wire"
)

// The v0.3 HTTP+JSON binding is a2a-go's own since v2.4.0 (a2av0.NewRESTHandler, #371):
// the v0.3 specification's routes {url}/v1/message:send, {url}/v1/tasks/{id}, ...,
// proto-JSON bodies with a message's parts under the v0.3.0 name "content", SSE streams,
// subscribe by POST and GET. restV03Routes adds what real v0.3 clients and the v0.3 TCK
// send or read that it lacks:
//   - request bodies in proto field names ("message_id") as well as JSON names
//     ("messageId"), and parts under "parts" as well as "content": the member names are
//     rewritten, guided by the v0.3 proto, to the JSON names a2a-go reads;
//   - query parameters in proto field names ("history_length");
//   - error answers that also carry the A2A error code and message at the top level
//     ({"code":-32001,"message":...}), which is what @a2a-js/sdk 0.3 reads, beside
//     a2a-go's {"error": google.rpc.Status} (application/problem+json, kept: it is how
//     a v0.3 HTTP+JSON answer is told from a 1.0 one).
func restV03Routes(sdkHandler http.Handler) http.Handler {
	sdk := firstEventAs(false, "application/problem+json", sdkHandler)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.RawQuery = camelQuery(r.URL.Query()).Encode()
		if m := v03Body(r); m != nil {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, "read the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(v03JSONNames(b, m)))
			r.ContentLength = -1
			r.Header.Del("Content-Length")
		}
		ew := &v03ErrorWriter{ResponseWriter: w}
		sdk.ServeHTTP(ew, r)
		ew.finish()
	})
}

// v03Body is the proto message a v0.3 route's request body holds, nil for none.
func v03Body(r *http.Request) proto.Message {
	if r.Method != http.MethodPost {
		return nil
	}
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/message:send"), strings.HasSuffix(p, "/message:stream"):
		return &a2apbv0.SendMessageRequest{}
	case strings.HasSuffix(p, "/pushNotificationConfigs"):
		return &a2apbv0.TaskPushNotificationConfig{}
	}
	return nil
}

// v03JSONNames rewrites the member names of a body read as m: proto field names
// ("message_id") become JSON names ("messageId"), and a message's parts go under the
// v0.3.0 name "content" that a2a-go reads. Values are kept as sent (a 0 stays 0), and
// user data (Struct and map fields: metadata, a data part) is not touched. A body that
// is not JSON is passed on unchanged, for a2a-go to refuse.
func v03JSONNames(b []byte, m proto.Message) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	if !renameFields(v, m.ProtoReflect().Descriptor(), 0) {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// maxNesting bounds how deep renameFields follows nested messages.
const maxNesting = 32

// renameFields renames, in the JSON object v read as md, every member named by a field's
// proto name to its JSON name (unless both are given), recursing into message fields;
// "parts" of a v0.3 Message becomes "content". It reports whether it changed anything.
func renameFields(v any, md protoreflect.MessageDescriptor, depth int) bool {
	obj, ok := v.(map[string]any)
	if !ok || depth > maxNesting {
		return false
	}
	isMessage := md.FullName() == "a2a.v1.Message" // v0.3 only: 1.0 names it "parts"
	changed := false
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	for _, k := range keys {
		x := obj[k]
		fields := md.Fields()
		fd := fields.ByJSONName(k)
		if fd == nil {
			fd = fields.ByName(protoreflect.Name(k))
		}
		if fd == nil && isMessage && k == "content" {
			fd = fields.ByName("parts")
		}
		if fd == nil {
			continue
		}
		name := fd.JSONName()
		if isMessage && fd.Name() == "parts" {
			name = "content"
		}
		if name != k {
			if _, both := obj[name]; !both {
				obj[name] = x
			}
			delete(obj, k)
			changed = true
		}
		sub := fd.Message()
		if sub == nil || fd.IsMap() || sub.FullName().Parent() == "google.protobuf" {
			continue
		}
		if list, ok := x.([]any); ok && fd.IsList() {
			for _, e := range list {
				changed = renameFields(e, sub, depth+1) || changed
			}
			continue
		}
		changed = renameFields(x, sub, depth+1) || changed
	}
	return changed
}

// camelQuery renames query parameters given in proto field names ("history_length") to
// the JSON names a2a-go reads ("historyLength"), unless both are given.
func camelQuery(q url.Values) url.Values {
	for k, vs := range q {
		if !strings.Contains(k, "_") {
			continue
		}
		c := restv03.SnakeToCamel(k)
		if _, both := q[c]; !both {
			q[c] = vs
		}
		delete(q, k)
	}
	return q
}

// v03ErrorWriter holds an error answer (status >= 400) of a2a-go's v0.3 handler and
// writes it with the A2A code and message added at the top level; anything else passes.
type v03ErrorWriter struct {
	http.ResponseWriter
	status int // the held error status; 0 while nothing is held
	buf    bytes.Buffer
}

// Unwrap lets http.ResponseController reach the connection.
func (w *v03ErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *v03ErrorWriter) WriteHeader(code int) {
	if code >= 400 && w.status == 0 {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *v03ErrorWriter) Write(p []byte) (int, error) {
	if w.status != 0 {
		if w.buf.Len()+len(p) > maxPeek {
			return 0, errors.New("error answer too large")
		}
		return w.buf.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes a flush on (SSE streams).
func (w *v03ErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.status == 0 {
		f.Flush()
	}
}

// finish writes a held error answer: {"code":..., "message":..., "error":{...}}.
func (w *v03ErrorWriter) finish() {
	if w.status == 0 {
		return
	}
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	out := w.buf.Bytes()
	if st, ok := wire.ParseStatus(out); ok && json.Unmarshal(out, &body) == nil {
		dual := restv03.ErrorBody{Code: -32603, Message: st.Message} // InternalError
		if e, ok := wire.ErrorOf(st); ok {
			dual.Code, dual.Reason = e.JSONRPC, st.Reason
		}
		withStatus := struct {
			restv03.ErrorBody
			Error json.RawMessage `json:"error"`
		}{dual, body.Error}
		if b, err := json.Marshal(withStatus); err == nil {
			out = append(b, '\n')
		}
	}
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(out)
}
