package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// TestErrorsSayWhatToDoNext: each way of failing that the user can fix gets a hint line
// naming the flag or the URL to try.
func TestErrorsSayWhatToDoNext(t *testing.T) {
	t.Parallel()
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, http.StatusText(code), code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	notFound, unauthorized := status(http.StatusNotFound), status(http.StatusUnauthorized)
	signKey := filepath.Join(t.TempDir(), "signer.pem")
	if code, _, stderr := runCLI(t, "", "key", "generate", signKey); code != ExitOK {
		t.Fatalf("key generate = %d: %s", code, stderr)
	}
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name": "t"}`))
	}))
	t.Cleanup(tlsSrv.Close)
	authed := labtest.Start(t, append(lab.Healthy(), lab.WithAuth("s3cret"))...)
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args []string
		code int
		hint string
	}{
		{"404 at a base URL, agent.json tried too", []string{"lint", notFound}, ExitUsage,
			"hint: " + notFound + " was read as the agent's base URL, and no card is at " + notFound + card.WellKnownPath +
				", nor at " + notFound + "/.well-known/agent.json (where agents older than A2A 0.3 serve it). If you have the card's own URL, give that"},
		{"404 at the well-known card URL: try agent.json", []string{"probe", notFound + card.WellKnownPath}, ExitUsage,
			"hint: no card is at " + notFound + card.WellKnownPath + ". Agents older than A2A 0.3 serve /.well-known/agent.json: try a2abind probe " +
				notFound + "/.well-known/agent.json"},
		{"404 at a card URL", []string{"probe", notFound + "/cards/x.json"}, ExitUsage,
			"hint: no card at " + notFound + "/cards/x.json: give the agent's base URL"},
		{"401 on the card, no -H", []string{"probe", unauthorized}, ExitUsage, `hint: the card endpoint wants credentials: pass them with -H, e.g. -H "Authorization: Bearer $TOKEN"`},
		{"401 on the card with -H", []string{"lint", unauthorized, "-H", "Authorization: Bearer nope"}, ExitUsage, "hint: the card endpoint refused the credentials given with -H"},
		{"401 on a call, no -H", []string{"send", authed.BaseURL, "hi"}, ExitFailed, "hint: the agent wants credentials: pass them with -H"},
		{"401 on a call with -H", []string{"send", authed.BaseURL, "hi", "-H", "Authorization: Bearer nope"}, ExitFailed, "hint: the agent refused the credentials given with -H"},
		{"untrusted certificate, probe", []string{"probe", tlsSrv.URL}, ExitUsage, "hint: the agent's certificate is not trusted: trust its CA with --cacert FILE, or pass --insecure"},
		{"untrusted certificate, send", []string{"send", tlsSrv.URL, "hi"}, ExitUsage, "--cacert FILE, or pass --insecure"},
		{"untrusted certificate, lint", []string{"lint", tlsSrv.URL}, ExitUsage, "hint: the agent's certificate is not trusted: trust its CA with --cacert FILE, or pass --insecure"},
		{"untrusted certificate, sign has no TLS flags", []string{"sign", tlsSrv.URL, "--key", signKey}, ExitUsage,
			"hint: the agent's certificate is not trusted, and sign has no TLS options: fetch the card yourself and pipe it in, e.g. curl --cacert ca.pem " + tlsSrv.URL + card.WellKnownPath + " | a2abind sign -"},
		{"nothing listens", []string{"probe", "http://" + closed}, ExitUsage, "hint: nothing listens there: is the agent running"},
		{"one argument, one argument", []string{"send", "only-target"}, ExitUsage, "send needs TARGET and TEXT, got 1 argument;"},
		{"a mistyped command", []string{"prob", "x"}, ExitUsage, "Did you mean this?\n    probe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, "", append(tt.args, "--timeout", "10s")...)
			if code != tt.code || !strings.Contains(stderr, tt.hint) {
				t.Errorf("%v = %d, stderr:\n%s\nwant %d and %q", tt.args, code, stderr, tt.code, tt.hint)
			}
		})
	}
}

// TestCardFetchBoundedAsDocumented: without --timeout, lint's card fetch gives up after
// the documented 10 s (not the command's 30 s), and the error says how to allow longer.
// With --timeout, that bound applies instead.
func TestCardFetchBoundedAsDocumented(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // hang until the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"lint", srv.URL}, "no complete answer within 10s"},
		{[]string{"lint", srv.URL, "--timeout", "1s"}, "no complete answer within 1s"},
		{[]string{"probe", srv.URL, "--timeout", "1s"}, "no complete answer within 1s"},
	} {
		code, _, stderr := runCLI(t, "", tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "hint: no answer in time: allow longer with --timeout") {
			t.Errorf("%v = %d, stderr:\n%s\nwant 2, %q and the --timeout hint", tt.args, code, stderr, tt.want)
		}
	}
}

// TestNotACardExits2: a JSON document that is no AgentCard gives exit 2 and says what it
// looked like, for every command that reads a card; "interfaces" is a list in JSON.
func TestNotACardExits2(t *testing.T) {
	t.Parallel()
	path := cardPath("not-a-card-status.json")
	for _, args := range [][]string{{"lint", path}, {"probe", path}, {"send", path, "hi"}, {"lint", path, "-o", "json"}} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != ExitUsage || !strings.Contains(stdout+stderr, `not an AgentCard: a JSON object with keys "status"`) {
			t.Errorf("%v = %d, stdout %q stderr %q; want 2 and not an AgentCard", args, code, stdout, stderr)
		}
	}
	code, stdout, _ := runCLI(t, `{"name": "no interfaces yet"}`, "lint", "-", "-o", "json")
	if code != ExitFailed || !strings.Contains(stdout, `"interfaces": []`) {
		t.Errorf("lint -o json of a card without interfaces = %d:\n%s\nwant 1 and \"interfaces\": []", code, stdout)
	}
}

// TestPlaintextHintNamesTheFlag: a delegation whose attempt found plaintext gRPC served
// at a host that is not loopback (delegate's TestPlaintextGRPCOffLoopback shows it on
// the wire) gets a hint naming --grpc-plaintext and the address.
func TestPlaintextHintNamesTheFlag(t *testing.T) {
	t.Parallel()
	err := &delegate.Error{Op: "SendMessage", Agent: "a", Kind: delegate.ErrExhausted, Attempts: []delegate.Attempt{{
		Interface:       card.Interface{URL: "agent.example:50051", Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1},
		Outcome:         wire.TLSMismatch,
		PlaintextServed: true,
	}}}
	got := withHint(err, hintContext{command: "send"}).Error()
	if !strings.Contains(got, "hint: agent.example:50051 serves plaintext gRPC") || !strings.Contains(got, "pass --grpc-plaintext") {
		t.Errorf("hinted error:\n%s\nwant a hint naming the address and --grpc-plaintext", got)
	}
	err.Attempts[0].PlaintextServed = false
	if got := withHint(err, hintContext{command: "send"}).Error(); strings.Contains(got, "--grpc-plaintext") {
		t.Errorf("without plaintext found, the hint names --grpc-plaintext:\n%s", got)
	}
}
