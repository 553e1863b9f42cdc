package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	a2apbv0 "github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// post sends a raw request and returns status, headers and the (bounded) body.
func post(t *testing.T, url, contentType, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(b)
}

// rpcError is the part of a JSON-RPC error answer the tests look at.
type rpcError struct {
	ID     any    `json:"id"`
	Code   int    `json:"code"`
	Reason string `json:"reason"`
}

func parseRPC(t *testing.T, body string) (rpcError, string) {
	t.Helper()
	var doc struct {
		ID    any `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    []struct {
				Reason string `json:"reason"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("JSON-RPC answer %q: %v", body, err)
	}
	if doc.Error == nil {
		return rpcError{ID: doc.ID}, ""
	}
	e := rpcError{ID: doc.ID, Code: doc.Error.Code}
	if len(doc.Error.Data) > 0 {
		e.Reason = doc.Error.Data[0].Reason
	}
	return e, doc.Error.Message
}

const getTaskV1 = `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"no-such-task"}}`
const getTaskV03 = `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"no-such-task"}}`

func TestJSONRPCGate(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithV03())
	base := srv.LocalBaseURL()
	tests := []struct {
		name        string
		path        string
		contentType string
		body        string
		header      []string
		want        rpcError
		wantMsg     []string
	}{
		{"1.0 with A2A-Version 1.0 reaches the handler", PathJSONRPC, "application/json", getTaskV1, []string{"A2A-Version", "1.0"},
			rpcError{ID: 7.0, Code: -32001, Reason: "TASK_NOT_FOUND"}, nil},
		{"1.0 with 1.0.0", PathJSONRPC, "application/json; charset=utf-8", getTaskV1, []string{"A2A-Version", "1.0.0"},
			rpcError{ID: 7.0, Code: -32001, Reason: "TASK_NOT_FOUND"}, nil},
		{"1.0 with the version as a query parameter", PathJSONRPC + "?A2A-Version=1.0", "application/json", getTaskV1, nil,
			rpcError{ID: 7.0, Code: -32001, Reason: "TASK_NOT_FOUND"}, nil},
		{"1.0 without A2A-Version means 0.3", PathJSONRPC, "application/json", getTaskV1, nil,
			rpcError{ID: 7.0, Code: -32009, Reason: "VERSION_NOT_SUPPORTED"},
			[]string{"A2A-Version 0.3 is not supported by this JSONRPC interface, which serves 1.0", "without A2A-Version asks for 0.3", "JSONRPC 0.3 is served at " + base + PathJSONRPCV03}},
		{"1.0 asked for 2.0", PathJSONRPC, "application/json", getTaskV1, []string{"A2A-Version", "2.0"},
			rpcError{ID: 7.0, Code: -32009, Reason: "VERSION_NOT_SUPPORTED"}, nil},
		{"0.3 without A2A-Version reaches the handler", PathJSONRPCV03, "application/json", getTaskV03, nil,
			rpcError{ID: 7.0, Code: -32001}, nil},
		{"0.3 with A2A-Version 0.3 (a2a-go's and a2a-js's v0.3 clients)", PathJSONRPCV03, "application/json", getTaskV03, []string{"A2A-Version", "0.3"},
			rpcError{ID: 7.0, Code: -32001}, nil},
		{"0.3 asked for 1.0", PathJSONRPCV03, "application/json", getTaskV1, []string{"A2A-Version", "1.0"},
			rpcError{ID: 7.0, Code: -32009, Reason: "VERSION_NOT_SUPPORTED"}, []string{"JSONRPC 1.0 is served at " + base + PathJSONRPC}},
		{"text/plain", PathJSONRPC, "text/plain", getTaskV1, []string{"A2A-Version", "1.0"},
			rpcError{ID: 7.0, Code: -32005, Reason: "CONTENT_TYPE_NOT_SUPPORTED"},
			[]string{`content type "text/plain" is not JSON`, "application/json or application/a2a+json", "JSONRPC 1.0 at " + base + PathJSONRPC, "GRPC 1.0 at " + srv.GRPCAddr(), "HTTP+JSON 1.0 at " + base + PathREST}},
		{"form-encoded with a body that is not JSON", PathJSONRPC, "application/x-www-form-urlencoded", "a=b", nil,
			rpcError{ID: nil, Code: -32005, Reason: "CONTENT_TYPE_NOT_SUPPORTED"}, nil},
		{"application/a2a+json is JSON", PathJSONRPC, "application/a2a+json", getTaskV1, []string{"A2A-Version", "1.0"},
			rpcError{ID: 7.0, Code: -32001, Reason: "TASK_NOT_FOUND"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := post(t, base+tt.path, tt.contentType, tt.body, tt.header...)
			if code != http.StatusOK {
				t.Fatalf("HTTP status = %d, want 200 (JSON-RPC errors travel in the body): %s", code, body)
			}
			got, msg := parseRPC(t, body)
			if tt.want.Reason == "" {
				got.Reason = "" // a2a-go's v0.3 handler adds no ErrorInfo
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("JSON-RPC answer mismatch (-want +got):\n%s\n%s", diff, body)
			}
			for _, frag := range tt.wantMsg {
				if !strings.Contains(msg, frag) {
					t.Errorf("error message = %q, want it to contain %q", msg, frag)
				}
			}
		})
	}
}

// TestOneMediaTypeRule: HTTP+JSON refuses a request body that is not JSON by the rule
// JSON-RPC refuses it with (isJSON): 415 naming the accepted types, ErrorInfo
// CONTENT_TYPE_NOT_SUPPORTED, on both versions (0.3 with the A2A code -32005 too); JSON
// bodies in either media type, and a bodiless POST without a content type, pass.
func TestOneMediaTypeRule(t *testing.T) {
	srv := startServer(t, WithV03())
	base := srv.LocalBaseURL()
	msg := `{"message":{"messageId":"m-mt","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	msgV03 := `{"message":{"messageId":"m-mt","role":"ROLE_USER","content":[{"text":"hi"}]}}`
	tests := []struct {
		name, url, contentType, body, version string
		wantStatus                            int
	}{
		{"1.0 text/plain", base + PathREST + "/message:send", "text/plain", msg, "1.0", 415},
		{"1.0 form-encoded", base + PathREST + "/message:send", "application/x-www-form-urlencoded", "a=b", "1.0", 415},
		{"0.3 text/plain", base + PathRESTV03 + "/v1/message:send", "text/plain", msgV03, "", 415},
		{"1.0 application/json", base + PathREST + "/message:send", "application/json", msg, "1.0", 200},
		{"1.0 application/a2a+json", base + PathREST + "/message:send", "application/a2a+json", msg, "1.0", 200},
		{"0.3 application/json", base + PathRESTV03 + "/v1/message:send", "application/json", msgV03, "", 200},
		{"1.0 no body, no content type", base + PathREST + "/tasks/none:cancel", "", "", "1.0", 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h []string
			if tt.version != "" {
				h = []string{"A2A-Version", tt.version}
			}
			code, hdr, body := post(t, tt.url, tt.contentType, tt.body, h...)
			if code != tt.wantStatus {
				t.Fatalf("POST %s (%s) = %d %s, want %d", tt.url, tt.contentType, code, body, tt.wantStatus)
			}
			if code != 415 {
				return
			}
			if !strings.Contains(body, "CONTENT_TYPE_NOT_SUPPORTED") || !strings.Contains(body, "application/json or application/a2a+json") ||
				!strings.Contains(hdr.Get("Accept-Post"), "application/a2a+json") {
				t.Errorf("415 answer = %s (Accept-Post %q), want ErrorInfo CONTENT_TYPE_NOT_SUPPORTED naming the accepted types", body, hdr.Get("Accept-Post"))
			}
			if tt.version == "" && !strings.Contains(body, `"code":-32005`) {
				t.Errorf("0.3 415 answer = %s, want the A2A code -32005 at the top level", body)
			}
		})
	}
}

func TestRESTVersionGate(t *testing.T) {
	srv := startServer(t, WithV03())
	base := srv.LocalBaseURL()
	tests := []struct {
		name       string
		url        string
		header     []string
		wantStatus int
		wantReason string
	}{
		{"1.0 with A2A-Version 1.0", base + PathREST + "/tasks/none", []string{"A2A-Version", "1.0"}, http.StatusNotFound, "TASK_NOT_FOUND"},
		{"1.0 with the query parameter", base + PathREST + "/tasks/none?A2A-Version=1.0", nil, http.StatusNotFound, "TASK_NOT_FOUND"},
		{"1.0 without A2A-Version", base + PathREST + "/tasks/none", nil, http.StatusBadRequest, "VERSION_NOT_SUPPORTED"},
		{"0.3 without A2A-Version", base + PathRESTV03 + "/v1/tasks/none", nil, http.StatusNotFound, ""},
		{"0.3 asked for 1.0", base + PathRESTV03 + "/v1/tasks/none", []string{"A2A-Version", "1.0"}, http.StatusBadRequest, "VERSION_NOT_SUPPORTED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := get(t, tt.url, tt.header...)
			if code != tt.wantStatus {
				t.Fatalf("GET %s = %d, want %d: %s", tt.url, code, tt.wantStatus, body)
			}
			if tt.wantReason != "" && !strings.Contains(body, `"reason":"`+tt.wantReason+`"`) {
				t.Errorf("body = %s, want reason %s", body, tt.wantReason)
			}
			if tt.wantReason == "VERSION_NOT_SUPPORTED" && !strings.Contains(body, `"status":"FAILED_PRECONDITION"`) {
				t.Errorf("body = %s, want google.rpc.Status FAILED_PRECONDITION", body)
			}
		})
	}
}

func grpcConn(t *testing.T, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func TestGRPCVersionGate(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithV03())
	conn := grpcConn(t, srv.GRPCAddr())
	v1, v0 := a2apb.NewA2AServiceClient(conn), a2apbv0.NewA2AServiceClient(conn)
	callV1 := func(ctx context.Context) error {
		_, err := v1.GetTask(ctx, &a2apb.GetTaskRequest{Id: "none"})
		return err
	}
	callV0 := func(ctx context.Context) error {
		_, err := v0.GetTask(ctx, &a2apbv0.GetTaskRequest{Name: "tasks/none"})
		return err
	}
	tests := []struct {
		name       string
		call       func(context.Context) error
		version    string
		wantCode   codes.Code
		wantReason string
	}{
		{"1.0 service, a2a-version 1.0", callV1, "1.0", codes.NotFound, "TASK_NOT_FOUND"},
		{"1.0 service, no a2a-version", callV1, "", codes.FailedPrecondition, "VERSION_NOT_SUPPORTED"},
		{"1.0 service, a2a-version 0.3", callV1, "0.3", codes.FailedPrecondition, "VERSION_NOT_SUPPORTED"},
		{"0.3 service, no a2a-version", callV0, "", codes.NotFound, ""},
		{"0.3 service, a2a-version 0.3", callV0, "0.3", codes.NotFound, ""},
		{"0.3 service, a2a-version 1.0", callV0, "1.0", codes.FailedPrecondition, "VERSION_NOT_SUPPORTED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			if tt.version != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", tt.version)
			}
			st := status.Convert(tt.call(ctx))
			if st.Code() != tt.wantCode {
				t.Fatalf("code = %s (%s), want %s", st.Code(), st.Message(), tt.wantCode)
			}
			if tt.wantReason != "" && errorInfoReason(st) != tt.wantReason {
				t.Errorf("ErrorInfo reason = %q, want %q", errorInfoReason(st), tt.wantReason)
			}
		})
	}
}

// TestGRPCOnTheHTTPListener: without WithGRPCOnHTTP a gRPC client that dials the HTTP
// port gets a clear refusal naming where gRPC is served (and probe calls it
// wrong_binding); with it, the call is served there.
func TestGRPCOnTheHTTPListener(t *testing.T) {
	t.Run("not served there", func(t *testing.T) {
		srv := startServer(t, WithGRPCAddr("127.0.0.1:0"))
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, err := a2apb.NewA2AServiceClient(grpcConn(t, srv.HTTPAddr())).GetTask(
			metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0"), &a2apb.GetTaskRequest{Id: "none"})
		st := status.Convert(err)
		if st.Code() != codes.Unimplemented || !strings.Contains(st.Message(), "gRPC is served at GRPC 1.0 at "+srv.GRPCAddr()) {
			t.Errorf("gRPC call on the HTTP port = %s %q, want UNIMPLEMENTED naming %s", st.Code(), st.Message(), srv.GRPCAddr())
		}
		if got := errorInfoReason(st); got != "CONTENT_TYPE_NOT_SUPPORTED" {
			t.Errorf("ErrorInfo reason = %q, want CONTENT_TYPE_NOT_SUPPORTED", got)
		}
		// HTTP/1.1 with a gRPC content type: plain 415 with the same explanation.
		code, _, body := post(t, srv.LocalBaseURL()+"/lf.a2a.v1.A2AService/GetTask", "application/grpc", "\x00\x00\x00\x00\x00")
		if code != http.StatusUnsupportedMediaType || !strings.Contains(body, srv.GRPCAddr()) {
			t.Errorf("HTTP/1.1 gRPC request = %d %q, want 415 naming %s", code, body, srv.GRPCAddr())
		}
		r := probe.Interface(ctx, card.Interface{URL: srv.HTTPAddr(), Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1})
		if r.Outcome != wire.WrongBinding {
			t.Errorf("probe GRPC at the HTTP port = %s (%s), want wrong_binding", r.Outcome, r.Detail)
		}
	})
	t.Run("served there", func(t *testing.T) {
		srv := startServer(t, WithGRPCOnHTTP())
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		got, err := sendEcho(ctx, card.Interface{URL: srv.HTTPAddr(), Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1}, grpcInsecure)
		if err != nil || got != "ping" {
			t.Errorf("gRPC on the HTTP port = %q, %v, want ping", got, err)
		}
		var grpcDeclared bool
		for _, i := range srv.Card().Interfaces {
			grpcDeclared = grpcDeclared || (i.Binding == a2a.TransportProtocolGRPC && i.URL == srv.HTTPAddr())
		}
		if !grpcDeclared {
			t.Errorf("card %v does not declare GRPC at %s", srv.Card().Interfaces, srv.HTTPAddr())
		}
	})
}

func TestCardCaching(t *testing.T) {
	srv := startServer(t)
	code, hdr, body := get(t, srv.CardURL())
	if code != http.StatusOK {
		t.Fatalf("GET card = %d", code)
	}
	etag := hdr.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.Contains(hdr.Get("Cache-Control"), "max-age=300") {
		t.Errorf("card headers ETag=%q Cache-Control=%q, want a strong ETag and max-age=300", etag, hdr.Get("Cache-Control"))
	}
	if body != string(srv.CardJSON()) {
		t.Errorf("card body differs from CardJSON()")
	}
	tests := []struct {
		ifNoneMatch string
		want        int
	}{
		{etag, http.StatusNotModified},
		{"W/" + etag, http.StatusNotModified},
		{`"other", ` + etag, http.StatusNotModified},
		{"*", http.StatusNotModified},
		{`"other"`, http.StatusOK},
	}
	for _, tt := range tests {
		if code, hdr, body := get(t, srv.CardURL(), "If-None-Match", tt.ifNoneMatch); code != tt.want {
			t.Errorf("If-None-Match %s = %d, want %d", tt.ifNoneMatch, code, tt.want)
		} else if code == http.StatusNotModified && (body != "" || hdr.Get("ETag") != etag) {
			t.Errorf("304 carries body %q, ETag %q", body, hdr.Get("ETag"))
		}
	}
	if code, _, _ := post(t, srv.CardURL(), "application/json", "{}"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST card = %d, want 405", code)
	}
	code, _, body = get(t, srv.LocalBaseURL()+"/")
	if code != http.StatusNotFound || !strings.Contains(body, "JSONRPC 1.0 at "+srv.LocalBaseURL()+PathJSONRPC) {
		t.Errorf("GET / = %d %q, want 404 naming where the bindings are", code, body)
	}
}

func TestGRPCOnHTTPNeedsHTTP2(t *testing.T) {
	srv := startServer(t, WithGRPCOnHTTP())
	code, _, body := post(t, srv.LocalBaseURL()+"/lf.a2a.v1.A2AService/GetTask", "application/grpc", "\x00\x00\x00\x00\x00")
	if code != http.StatusUnsupportedMediaType || !strings.Contains(body, "needs HTTP/2") {
		t.Errorf("HTTP/1.1 gRPC request with gRPC on the port = %d %q, want 415 asking for HTTP/2", code, body)
	}
}

func TestAllInterfacesAdvertisesLoopback(t *testing.T) {
	srv := newServer(t, WithHTTPAddr(":0"))
	_, port, _ := net.SplitHostPort(srv.HTTPAddr())
	if want := "http://127.0.0.1:" + port; srv.BaseURL() != want {
		t.Errorf("BaseURL() = %s, want %s", srv.BaseURL(), want)
	}
	// Any host names a listener bound to all interfaces.
	raw := mustJSON(t, map[string]any{"name": "x", "supportedInterfaces": []map[string]any{
		{"url": "http://agent.internal:" + port + PathJSONRPC, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}})
	if _, err := srv.verify(mustParse(t, raw)); err != nil {
		t.Errorf("verify(any host on an all-interfaces listener) = %v", err)
	}
}

func mustParse(t *testing.T, raw []byte) *card.Card {
	t.Helper()
	c, err := card.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOversizedRequestIsRefused(t *testing.T) {
	srv := startServer(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"` +
		strings.Repeat("x", DefaultMaxRequestBytes) + `"}]}}}`
	code, _, body := post(t, srv.LocalBaseURL()+PathJSONRPC, "application/json", big, "A2A-Version", "1.0")
	got, _ := parseRPC(t, body)
	if code != http.StatusOK || got.Code != -32700 {
		t.Errorf("a %d-byte request = HTTP %d, JSON-RPC %d, want the bounded read's parse error -32700: %s",
			len(big), code, got.Code, body[:min(len(body), 200)])
	}
}
