package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
)

// These tests speak the wire as the A2A TCK does: raw JSON-RPC and HTTP+JSON requests,
// and gRPC through the generated client.

// TestJSONRPCAtURLAndURLSlash: TCK clients post JSON-RPC to the interface URL + "/".
func TestJSONRPCAtURLAndURLSlash(t *testing.T) {
	srv := startServer(t, WithV03())
	for _, tt := range []struct{ path, version, body string }{
		{PathJSONRPC, "1.0", getTaskV1},
		{PathJSONRPCV03, "0.3", getTaskV03},
	} {
		for _, url := range []string{srv.LocalBaseURL() + tt.path, srv.LocalBaseURL() + tt.path + "/"} {
			code, _, body := post(t, url, "application/json", tt.body, "A2A-Version", tt.version)
			got, _ := parseRPC(t, body)
			if code != http.StatusOK || got.Code != -32001 {
				t.Errorf("POST %s GetTask(unknown) = HTTP %d, JSON-RPC %d, want 200 and -32001 TaskNotFound from a2a-go", url, code, got.Code)
			}
		}
	}
	// Only the slash itself: deeper paths are not the interface.
	if code, _, _ := post(t, srv.LocalBaseURL()+PathJSONRPC+"/x", "application/json", getTaskV1); code != http.StatusNotFound {
		t.Errorf("POST %s/x = %d, want 404", PathJSONRPC, code)
	}
}

// clientFor is an a2a-go client bound to one of srv's interfaces.
func clientFor(t *testing.T, srv *Server, binding a2a.TransportProtocol) *a2aclient.Client {
	t.Helper()
	for _, iface := range srv.Interfaces() {
		if iface.Binding != binding || iface.ProtocolVersion != card.V1 {
			continue
		}
		ep := &a2a.AgentInterface{URL: iface.URL, ProtocolBinding: iface.Binding, ProtocolVersion: a2a.Version}
		c, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{ep}, grpcInsecure)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Destroy() })
		return c
	}
	t.Fatalf("no %s interface", binding)
	return nil
}

var bindings = []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolGRPC, a2a.TransportProtocolHTTPJSON}

// sendTaskAs sends one message as user ("" for no credentials) and returns the task id.
func sendTaskAs(t *testing.T, c *a2aclient.Client, user string) a2a.TaskID {
	t.Helper()
	res, err := c.SendMessage(withBearer(t.Context(), user), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))})
	if err != nil {
		t.Fatalf("SendMessage as %q: %v", user, err)
	}
	tk, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage = %T, want a task", res)
	}
	return tk.ID
}

func withBearer(ctx context.Context, user string) context.Context {
	if user == "" {
		return ctx
	}
	return a2aclient.AttachServiceParams(ctx, a2aclient.ServiceParams{"authorization": {"Bearer token-of-" + user}})
}

func listIDs(ctx context.Context, c *a2aclient.Client) ([]a2a.TaskID, error) {
	resp, err := c.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil {
		return nil, err
	}
	var ids []a2a.TaskID
	for _, tk := range resp.Tasks {
		ids = append(ids, tk.ID)
	}
	return ids, nil
}

func TestListTasksWithoutCredentialsWhenTheCardDeclaresNoSecurity(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"))
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := clientFor(t, srv, b)
			id := sendTaskAs(t, c, "")
			ids, err := listIDs(t.Context(), c)
			if err != nil {
				t.Fatalf("ListTasks without credentials = %v, want the tasks", err)
			}
			if !contains(ids, id) {
				t.Errorf("ListTasks = %v, want it to contain the task just sent (%s)", ids, id)
			}
		})
	}
}

func contains(ids []a2a.TaskID, id a2a.TaskID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// bearerAuth authenticates "Bearer token-of-NAME" as NAME (a test's stand-in for an
// agent's own authentication).
type bearerAuth struct {
	a2asrv.PassthroughCallInterceptor
}

func (bearerAuth) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	if v, ok := cc.ServiceParams().Get("authorization"); ok && len(v) > 0 {
		if user, ok := strings.CutPrefix(v[0], "Bearer token-of-"); ok && user != "" {
			cc.User = a2asrv.NewAuthenticatedUser(user, nil)
		}
	}
	return ctx, nil, nil
}

var bearerScheme = WithSecurity(
	a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}},
	a2a.SecurityRequirementsOptions{{"bearer": {}}})

func TestListTasksIsScopedToTheAuthenticatedUser(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), bearerScheme,
		WithHandlerOptions(a2asrv.WithCallInterceptors(bearerAuth{})))
	if len(srv.Card().SecuritySchemes) == 0 {
		t.Fatal("the derived card declares no security scheme")
	}
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := clientFor(t, srv, b)
			alice, bob := sendTaskAs(t, c, "alice"), sendTaskAs(t, c, "bob")
			ids, err := listIDs(withBearer(t.Context(), "alice"), c)
			if err != nil {
				t.Fatalf("ListTasks as alice = %v", err)
			}
			if !contains(ids, alice) || contains(ids, bob) {
				t.Errorf("ListTasks as alice = %v, want %s and not bob's %s", ids, alice, bob)
			}
			if _, err := c.GetTask(withBearer(t.Context(), "alice"), &a2a.GetTaskRequest{ID: bob}); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("GetTask(bob's task) as alice = %v, want TaskNotFound", err)
			}
			if _, err := listIDs(t.Context(), c); !errors.Is(err, a2a.ErrUnauthenticated) {
				t.Errorf("ListTasks without credentials = %v, want Unauthenticated", err)
			}
		})
	}
}

func TestCardLastModified(t *testing.T) {
	srv := startServer(t)
	code, hdr, _ := get(t, srv.CardURL())
	lm, err := http.ParseTime(hdr.Get("Last-Modified"))
	if code != http.StatusOK || err != nil {
		t.Fatalf("GET card = %d, Last-Modified %q (%v), want 200 with an HTTP date", code, hdr.Get("Last-Modified"), err)
	}
	tests := []struct {
		name   string
		header []string
		want   int
	}{
		{"If-Modified-Since the Last-Modified", []string{"If-Modified-Since", hdr.Get("Last-Modified")}, http.StatusNotModified},
		{"If-Modified-Since later", []string{"If-Modified-Since", lm.Add(time.Hour).Format(http.TimeFormat)}, http.StatusNotModified},
		{"If-Modified-Since earlier", []string{"If-Modified-Since", lm.Add(-time.Second).Format(http.TimeFormat)}, http.StatusOK},
		{"If-Modified-Since garbage", []string{"If-Modified-Since", "yesterday"}, http.StatusOK},
		// If-None-Match takes precedence (RFC 9110 §13.2.2).
		{"If-None-Match other, If-Modified-Since later", []string{"If-None-Match", `"other"`,
			"If-Modified-Since", lm.Add(time.Hour).Format(http.TimeFormat)}, http.StatusOK},
	}
	for _, tt := range tests {
		if code, _, body := get(t, srv.CardURL(), tt.header...); code != tt.want || (code == http.StatusNotModified && body != "") {
			t.Errorf("%s: GET card = %d (body %d bytes), want %d", tt.name, code, len(body), tt.want)
		}
	}
}

// TestRESTAcceptsBothMediaTypes: v1.0.1 says HTTP+JSON SHOULD use application/a2a+json;
// v1.0.0 clients send application/json.
func TestRESTAcceptsBothMediaTypes(t *testing.T) {
	srv := startServer(t)
	msg := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	for _, ct := range []string{"application/json", "application/a2a+json", "application/a2a+json; charset=utf-8"} {
		code, hdr, body := post(t, srv.LocalBaseURL()+PathREST+"/message:send", ct, strings.Replace(msg, "m1", "m-"+ct, 1), "A2A-Version", "1.0")
		var doc struct {
			Task *struct{ ID string } `json:"task"`
		}
		if err := json.Unmarshal([]byte(body), &doc); code != http.StatusOK || err != nil || doc.Task == nil || doc.Task.ID == "" {
			t.Errorf("POST message:send as %s = %d %q, want 200 with a task", ct, code, body)
		}
		if got := hdr.Get("Content-Type"); !strings.HasPrefix(got, "application/json") {
			t.Errorf("answer Content-Type = %q, want application/json (what a2a-go v2.3.1 clients decode errors from)", got)
		}
	}
}

// errorCase is one A2A error provoked on every binding, with what spec v1.0.1 (§5.4)
// says each binding answers.
type errorCase struct {
	name       string
	rpc        string // JSON-RPC body
	restMethod string
	restPath   string
	restBody   string
	grpc       func(ctx context.Context, c a2apb.A2AServiceClient) error
	code       int        // JSON-RPC code
	httpStatus int        // HTTP+JSON status
	grpcCode   codes.Code // gRPC code
	reason     string     // ErrorInfo reason
}

func TestErrorsFollowTheSpecTable(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"))
	done := sendTaskAs(t, clientFor(t, srv, a2a.TransportProtocolJSONRPC), "")
	push := fmt.Sprintf(`{"taskId":%q,"url":"https://hooks.example/x"}`, done)
	cases := []errorCase{
		{name: "TaskNotFound",
			rpc:        `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"no-such-task"}}`,
			restMethod: http.MethodGet, restPath: "/tasks/no-such-task",
			grpc: func(ctx context.Context, c a2apb.A2AServiceClient) error {
				_, err := c.GetTask(ctx, &a2apb.GetTaskRequest{Id: "no-such-task"})
				return err
			},
			code: -32001, httpStatus: http.StatusNotFound, grpcCode: codes.NotFound, reason: "TASK_NOT_FOUND"},
		{name: "TaskNotCancelable",
			rpc:        fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":%q}}`, done),
			restMethod: http.MethodPost, restPath: "/tasks/" + string(done) + ":cancel", restBody: "{}",
			grpc: func(ctx context.Context, c a2apb.A2AServiceClient) error {
				_, err := c.CancelTask(ctx, &a2apb.CancelTaskRequest{Id: string(done)})
				return err
			},
			code: -32002, httpStatus: http.StatusBadRequest, grpcCode: codes.FailedPrecondition, reason: "TASK_NOT_CANCELABLE"},
		{name: "PushNotificationNotSupported",
			rpc:        `{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":` + push + `}`,
			restMethod: http.MethodPost, restPath: "/tasks/" + string(done) + "/pushNotificationConfigs", restBody: push,
			grpc: func(ctx context.Context, c a2apb.A2AServiceClient) error {
				_, err := c.CreateTaskPushNotificationConfig(ctx, &a2apb.TaskPushNotificationConfig{TaskId: string(done), Url: "https://hooks.example/x"})
				return err
			},
			code: -32003, httpStatus: http.StatusBadRequest, grpcCode: codes.FailedPrecondition, reason: "PUSH_NOTIFICATION_NOT_SUPPORTED"},
		{name: "UnsupportedOperation (extended card not declared)",
			rpc:        `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`,
			restMethod: http.MethodGet, restPath: "/extendedAgentCard",
			grpc: func(ctx context.Context, c a2apb.A2AServiceClient) error {
				_, err := c.GetExtendedAgentCard(ctx, &a2apb.GetExtendedAgentCardRequest{})
				return err
			},
			code: -32004, httpStatus: http.StatusBadRequest, grpcCode: codes.FailedPrecondition, reason: "UNSUPPORTED_OPERATION"},
	}
	conn := grpcConn(t, srv.GRPCAddr())
	gc := a2apb.NewA2AServiceClient(conn)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, body := post(t, srv.LocalBaseURL()+PathJSONRPC, "application/json", tc.rpc, "A2A-Version", "1.0")
			if got, msg := parseRPC(t, body); got.Code != tc.code || got.Reason != tc.reason {
				t.Errorf("JSON-RPC = %d %s (%s), want %d %s", got.Code, got.Reason, msg, tc.code, tc.reason)
			}
			code, reason, raw := restError(t, tc.restMethod, srv.LocalBaseURL()+PathREST+tc.restPath, tc.restBody)
			if code != tc.httpStatus || reason != tc.reason {
				t.Errorf("HTTP+JSON = %d %s (%s), want %d %s", code, reason, raw, tc.httpStatus, tc.reason)
			}
			ctx := metadata.AppendToOutgoingContext(t.Context(), "a2a-version", "1.0")
			st := status.Convert(tc.grpc(ctx, gc))
			if st.Code() != tc.grpcCode || errorInfoReason(st) != tc.reason {
				t.Errorf("gRPC = %s %s (%s), want %s %s", st.Code(), errorInfoReason(st), st.Message(), tc.grpcCode, tc.reason)
			}
		})
	}
}

// restError sends one HTTP+JSON request and returns the status and ErrorInfo reason.
func restError(t *testing.T, method, url, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("A2A-Version", "1.0")
	if body != "" {
		req.Header.Set("Content-Type", "application/a2a+json")
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Error struct {
			Details []struct {
				Reason string `json:"reason"`
			} `json:"details"`
		} `json:"error"`
	}
	raw, _ := json.Marshal(resp.Header)
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || len(doc.Error.Details) == 0 {
		return resp.StatusCode, "", string(raw)
	}
	return resp.StatusCode, doc.Error.Details[0].Reason, string(raw)
}

// TestPushAndExtendedCardPassThrough: a2a-go's push-notification store and sender and an
// extended card producer reach the handler, and the derived card declares them.
func TestPushAndExtendedCardPassThrough(t *testing.T) {
	// A complete card: a2a-go's gRPC conversion refuses one without interfaces, modes or skills.
	extended := &a2a.AgentCard{Name: "echo, for members", Description: "the extended card", Version: "1.0.0",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: "http://127.0.0.1:1/a2a/jsonrpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "Echoes", Tags: []string{"echo"}}}}
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"),
		WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(nil)),
		WithExtendedAgentCard(a2asrv.ExtendedAgentCardProducerFn(func(context.Context, *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
			return extended, nil
		})))
	var doc struct {
		Capabilities struct {
			PushNotifications bool `json:"pushNotifications"`
			ExtendedAgentCard bool `json:"extendedAgentCard"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(srv.CardJSON(), &doc); err != nil || !doc.Capabilities.PushNotifications || !doc.Capabilities.ExtendedAgentCard {
		t.Errorf("card capabilities = %+v (%v), want pushNotifications and extendedAgentCard", doc.Capabilities, err)
	}
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := clientFor(t, srv, b)
			id := sendTaskAs(t, c, "")
			cfg, err := c.CreateTaskPushConfig(t.Context(), &a2a.PushConfig{TaskID: id, URL: "https://hooks.example/a2a"})
			if err != nil || cfg.TaskID != id {
				t.Errorf("CreateTaskPushConfig = %+v, %v; want the config stored", cfg, err)
			}
			got, err := c.GetExtendedAgentCard(t.Context(), &a2a.GetExtendedAgentCardRequest{})
			if err != nil || got.Name != extended.Name {
				t.Errorf("GetExtendedAgentCard = %v, %v; want %q", got, err, extended.Name)
			}
		})
	}
}
