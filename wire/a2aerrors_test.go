package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/errordetails"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	gogrpc "google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// TestA2AErrorTableMatchesTheSDK pins wire's A2A error table to a2a-go on the wire: an
// agent whose executor fails with each sentinel answers, on JSON-RPC, HTTP+JSON and
// gRPC, the code, status and ErrorInfo (reason, a2a.ProtocolDomain) the table says.
func TestA2AErrorTableMatchesTheSDK(t *testing.T) {
	for _, row := range wire.A2AErrors() {
		t.Run(row.Reason(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			a := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithREST(card.V1, lab.PathREST),
				lab.WithGRPC(lab.GRPCV1), lab.WithExecutor(lab.Relay{Err: row.Err}))
			msg := `{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}`

			var rpc struct {
				Error struct {
					Code int                   `json:"code"`
					Data []*errordetails.Typed `json:"data"`
				} `json:"error"`
			}
			post(ctx, t, a.URL(lab.PathJSONRPC), `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":`+msg+`}}`, &rpc)
			if rpc.Error.Code != row.JSONRPC || !hasErrorInfo(rpc.Error.Data, row.Reason()) {
				t.Errorf("JSON-RPC answered %+v, want code %d with ErrorInfo %s", rpc.Error, row.JSONRPC, row.Reason())
			}

			var rest struct {
				Error struct {
					Code    int                   `json:"code"`
					Status  string                `json:"status"`
					Details []*errordetails.Typed `json:"details"`
				} `json:"error"`
			}
			if got := post(ctx, t, a.URL(lab.PathREST)+"/message:send", `{"message":`+msg+`}`, &rest); got != row.HTTP ||
				rest.Error.Status != row.GRPCName() || !hasErrorInfo(rest.Error.Details, row.Reason()) {
				t.Errorf("HTTP+JSON answered %d %+v, want %d %s with ErrorInfo %s", got, rest.Error, row.HTTP, row.GRPCName(), row.Reason())
			}

			conn, err := gogrpc.NewClient("passthrough:///"+a.GRPCAddr, gogrpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_, err = a2apb.NewA2AServiceClient(conn).SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{
				MessageId: "m1", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
			st := status.Convert(err)
			var reason, domain string
			for _, d := range st.Details() {
				if info, ok := d.(*errdetails.ErrorInfo); ok {
					reason, domain = info.GetReason(), info.GetDomain()
				}
			}
			if st.Code() != row.GRPC || reason != row.Reason() || domain != a2a.ProtocolDomain {
				t.Errorf("gRPC answered %s with ErrorInfo %s/%s, want %s with %s/%s", st.Code(), reason, domain, row.GRPC, row.Reason(), a2a.ProtocolDomain)
			}
		})
	}
}

func post(ctx context.Context, t *testing.T, url, body string, into any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2a.SvcParamVersion, card.V1)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if err := json.Unmarshal(buf.Bytes(), into); err != nil {
		t.Errorf("POST %s answered %d %q: %v", url, resp.StatusCode, buf.String(), err)
	}
	return resp.StatusCode
}

func hasErrorInfo(details []*errordetails.Typed, reason string) bool {
	for _, d := range details {
		if d.TypeURL == errordetails.ErrorInfoType && d.Value["reason"] == reason && d.Value["domain"] == a2a.ProtocolDomain {
			return true
		}
	}
	return false
}

// TestReasonIsA2AGos: the reasons read once at start are a2a-go's, row for row.
func TestReasonIsA2AGos(t *testing.T) {
	for _, e := range wire.A2AErrors() {
		if got, want := e.Reason(), a2a.ErrorReason(e.Err); got != want {
			t.Errorf("%v: Reason() = %q, a2a.ErrorReason says %q", e.Err, got, want)
		}
	}
}
