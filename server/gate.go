package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/errordetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/wire"
)

// maxPeek bounds how much of a refused JSON-RPC body is read to find its id.
const maxPeek = 1 << 20

// The A2A errors the gate answers with; their codes on each binding, reasons and
// ErrorInfo come from wire's one A2A error table.
var (
	errContentType = mustA2AError(a2a.ErrUnsupportedContentType)
	errVersion     = mustA2AError(a2a.ErrVersionNotSupported)
)

func mustA2AError(err error) wire.A2AError {
	e, ok := wire.ErrorFor(err)
	if !ok {
		panic(fmt.Sprintf("server: %v is not in wire's A2A error table", err))
	}
	return e
}

// requestedVersion is the A2A-Version a request asks for: the header, else the
// A2A-Version query parameter (specification §3.6.1), else "0.3" (a missing value
// means 0.3, §3.6.2). "1.0.0" is read as "1.0".
func requestedVersion(r *http.Request) string {
	v := r.Header.Get(a2a.SvcParamVersion)
	if v == "" {
		v = r.URL.Query().Get(a2a.SvcParamVersion)
	}
	return versionOrDefault(v)
}

func versionOrDefault(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	if v == "" {
		return card.V03
	}
	return card.NormalizeVersion(v)
}

// isJSON reports whether a content type is acceptable for JSON-RPC: application/json or
// any +json type, with parameters; a missing content type is tolerated.
func isJSON(ct string) bool {
	if strings.TrimSpace(ct) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// gateJSONRPC wraps a JSON-RPC handler of one protocol version. A wrong content type
// answers JSON-RPC -32005 and an unsupported A2A-Version -32009, both with HTTP 200 (as
// a2a-go and a2a-js answer every JSON-RPC error, so that JSON-RPC clients surface the
// message instead of a bare HTTP status).
func (srv *Server) gateJSONRPC(rt route, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !isJSON(r.Header.Get("Content-Type")) {
			writeJSONRPCError(w, peekID(r), errContentType, srv.mediaTypeText(r), nil)
			return
		}
		if v := requestedVersion(r); v != rt.version {
			msg := srv.versionText(rt, v)
			writeJSONRPCError(w, peekID(r), errVersion, msg,
				map[string]string{"requestedVersion": v, "supportedVersion": rt.version})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// acceptedMediaTypes are the request media types both HTTP bindings read (isJSON).
const acceptedMediaTypes = "application/json or application/a2a+json (any +json type)"

// mediaTypeText explains a refused request media type: the one rule of both HTTP
// bindings, isJSON.
func (srv *Server) mediaTypeText(r *http.Request) string {
	return fmt.Sprintf("content type %q is not JSON: send %s; %s", r.Header.Get("Content-Type"), acceptedMediaTypes, srv.whereText())
}

// gateREST wraps an HTTP+JSON handler of one protocol version: a request body that is
// not JSON (isJSON, as for JSON-RPC) answers HTTP 415 naming the accepted types, and an
// unsupported A2A-Version HTTP 400, each with a google.rpc.Status body whose ErrorInfo
// reason is CONTENT_TYPE_NOT_SUPPORTED or VERSION_NOT_SUPPORTED.
func (srv *Server) gateREST(rt route, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(e wire.A2AError, msg string, md map[string]string) {
			if rt.version == card.V03 { // with the A2A code at the top level too
				ew := &v03ErrorWriter{ResponseWriter: w}
				writeRESTError(ew, e, msg, md)
				ew.finish()
				return
			}
			writeRESTError(w, e, msg, md)
		}
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody && !isJSON(r.Header.Get("Content-Type")) {
			w.Header().Set("Accept-Post", "application/json, application/a2a+json")
			e := errContentType
			e.HTTP = http.StatusUnsupportedMediaType // the media-type refusal itself, not the A2A error's 400
			refuse(e, srv.mediaTypeText(r), map[string]string{"contentType": r.Header.Get("Content-Type")})
			return
		}
		if v := requestedVersion(r); v != rt.version {
			refuse(errVersion, srv.versionText(rt, v),
				map[string]string{"requestedVersion": v, "supportedVersion": rt.version})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// versionText explains a version refusal and where the requested version is served.
func (srv *Server) versionText(rt route, requested string) string {
	msg := fmt.Sprintf("A2A-Version %s is not supported by this %s interface, which serves %s", requested, rt.binding, rt.version)
	if requested == card.V03 {
		msg += " (a request without A2A-Version asks for 0.3)"
	}
	for _, s := range srv.served {
		if s.binding == rt.binding && s.version == requested {
			return msg + fmt.Sprintf("; %s %s is served at %s", s.binding, s.version, s.public)
		}
	}
	return msg
}

// whereText names where each binding is served.
func (srv *Server) whereText() string {
	parts := make([]string, 0, len(srv.served))
	for _, s := range srv.served {
		parts = append(parts, s.String())
	}
	return "this agent serves " + strings.Join(parts, ", ")
}

// grpcElsewhere answers a gRPC request that reached the HTTP listener when gRPC is not
// served there: HTTP 415 naming where gRPC is served. Over HTTP/2 the answer is also a
// gRPC trailers-only response (UNIMPLEMENTED, ErrorInfo CONTENT_TYPE_NOT_SUPPORTED) so
// that gRPC clients show the message rather than a bare status.
func (srv *Server) grpcElsewhere(w http.ResponseWriter, r *http.Request) {
	var grpcAt []string
	for _, s := range srv.served {
		if s.path == "" { // gRPC: the binding served without a path
			grpcAt = append(grpcAt, s.String())
		}
	}
	msg := "a2abind: gRPC is not served on this HTTP listener"
	if len(grpcAt) > 0 {
		msg += "; gRPC is served at " + strings.Join(grpcAt, ", ")
	} else {
		msg += "; this agent serves no gRPC"
	}
	msg += "; " + srv.whereText()
	if r.ProtoMajor == 2 {
		st, err := status.New(codes.Unimplemented, msg).WithDetails(errContentType.ErrorInfoProto(nil))
		if err == nil {
			if b, err := proto.Marshal(st.Proto()); err == nil {
				w.Header().Set("Grpc-Status-Details-Bin", base64.RawStdEncoding.EncodeToString(b))
			}
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Grpc-Status", fmt.Sprint(int(codes.Unimplemented)))
		w.Header().Set("Grpc-Message", grpcEncode(msg))
		w.WriteHeader(http.StatusUnsupportedMediaType)
		return
	}
	http.Error(w, msg, http.StatusUnsupportedMediaType)
}

// grpcEncode percent-encodes a grpc-message value (gRPC over HTTP/2 §Responses).
func grpcEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '%' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// peekID reads the request body (bounded) for the JSON-RPC id; null if there is none.
func peekID(r *http.Request) json.RawMessage {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
	if err != nil {
		return nil
	}
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &env) != nil {
		return nil
	}
	return env.ID
}

// writeJSONRPCError answers the A2A error e in a JSON-RPC error object (HTTP 200), its
// ErrorInfo in data.
func writeJSONRPCError(w http.ResponseWriter, id json.RawMessage, e wire.A2AError, msg string, md map[string]string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int                   `json:"code"`
			Message string                `json:"message"`
			Data    []*errordetails.Typed `json:"data"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	resp.Error.Code, resp.Error.Message = e.JSONRPC, msg
	resp.Error.Data = []*errordetails.Typed{e.ErrorInfo(md)}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(resp)
}

// writeRESTError answers the A2A error e as HTTP+JSON: its HTTP status and a
// google.rpc.Status body with its ErrorInfo in details.
func writeRESTError(w http.ResponseWriter, e wire.A2AError, msg string, md map[string]string) {
	body := struct {
		Error struct {
			Code    int                   `json:"code"`
			Status  string                `json:"status"`
			Message string                `json:"message"`
			Details []*errordetails.Typed `json:"details"`
		} `json:"error"`
	}{}
	body.Error.Code, body.Error.Status, body.Error.Message = e.HTTP, e.GRPCName(), msg
	body.Error.Details = []*errordetails.Typed{e.ErrorInfo(md)}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.HTTP)
	_ = json.NewEncoder(w).Encode(body)
}

// grpcVersionOf maps a full gRPC method to the protocol version its service speaks.
func grpcVersionOf(fullMethod string) (string, bool) {
	switch {
	case strings.HasPrefix(fullMethod, "/"+grpcServiceV1+"/"):
		return card.V1, true
	case strings.HasPrefix(fullMethod, "/"+grpcServiceV03+"/"):
		return card.V03, true
	}
	return "", false
}

// grpcVersionCheck refuses a call whose a2a-version metadata asks for a version the
// called service does not speak: FAILED_PRECONDITION with ErrorInfo VERSION_NOT_SUPPORTED.
func (srv *Server) grpcVersionCheck(ctx context.Context, fullMethod string) error {
	want, ok := grpcVersionOf(fullMethod)
	if !ok {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	var got string
	if vs := md.Get(strings.ToLower(a2a.SvcParamVersion)); len(vs) > 0 {
		got = vs[0]
	}
	v := versionOrDefault(got)
	if v == want {
		return nil
	}
	rt := route{binding: a2a.TransportProtocolGRPC, version: want}
	st, err := status.New(errVersion.GRPC, srv.versionText(rt, v)).WithDetails(
		errVersion.ErrorInfoProto(map[string]string{"requestedVersion": v, "supportedVersion": want}))
	if err != nil {
		return status.Error(errVersion.GRPC, srv.versionText(rt, v))
	}
	return st.Err()
}
