package cli

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// The credentials of TestNoSecretRepeated: a bearer token, an API key header, the
// password of a URL's user:password@ and an api_key query value.
const (
	leakToken    = "tok-Zq8xL2pW9rT4vB7nM1kJ5hG3fD6sA0yU"
	leakAPIKey   = "apikey-Hy6Tg5Rf4Ed3Ws2Qa1Zx"
	leakPassword = "pw-Secr3t-99xy"
	leakQuery    = "qk-Lm4Nb5Vc6Xz7As8"
)

// leaked reports the first credential, or a form of one, found in text: each whole, the
// token's halves (a snippet cut inside it), base64 of user:password (Basic).
func leaked(text string) string {
	for _, s := range []string{leakToken, leakToken[:len(leakToken)/2+1], leakToken[len(leakToken)/2-1:], leakAPIKey, leakPassword, leakQuery,
		base64.StdEncoding.EncodeToString([]byte("alice:" + leakPassword))} {
		if strings.Contains(text, s) {
			return s
		}
	}
	return ""
}

// TestNoSecretRepeated: an agent that echoes every credential it receives (a 401 body,
// a JSON-RPC error message, WWW-Authenticate and another header, a gRPC status message,
// a redirect's Location, on the card fetch and on the interfaces) makes probe, lint and
// send show none of them: in text, in JSON, on stderr, in the exported spans' names,
// attributes, events and status.
func TestNoSecretRepeated(t *testing.T) {
	a := labtest.Start(t, lab.Leaky()...)
	rcv := otlptest.Start(t)
	rcv.Env(t, "http/protobuf")
	creds := []string{"-H", "Authorization: Bearer " + leakToken, "-H", "X-Api-Key: " + leakAPIKey, "--credential-host", "127.0.0.1"}
	withQuery := a.BaseURL + "/?api_key=" + leakQuery
	withUser := strings.Replace(a.BaseURL, "http://", "http://alice:"+leakPassword+"@", 1) + "/"
	targets := filepath.Join(t.TempDir(), "targets.txt")
	if err := os.WriteFile(targets, []byte(withQuery+"\n"+a.BaseURL+lab.LeakyDenied+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := [][]string{
		append([]string{"probe", withQuery}, creds...),
		append([]string{"probe", withQuery, "-o", "json"}, creds...),
		append([]string{"probe", a.BaseURL, "--summary"}, creds...),
		{"probe", withUser},
		{"probe", withUser, "-o", "json"},
		append([]string{"probe", a.BaseURL + lab.LeakyDenied}, creds...),
		append([]string{"probe", a.BaseURL + lab.LeakyAway, "-o", "json"}, creds...),
		append([]string{"probe", "--targets", targets}, creds...),
		append([]string{"probe", "--targets", targets, "-o", "json"}, creds...),
		append([]string{"lint", a.BaseURL + lab.LeakyDenied}, creds[:4]...),
		append([]string{"lint", a.BaseURL + lab.LeakyAway, "-o", "json"}, creds[:4]...),
		append([]string{"send", a.BaseURL, "hello", "-v", "--no-cache"}, creds...),
		append([]string{"send", a.BaseURL, "hello", "-o", "json", "--no-cache"}, creds...),
		append([]string{"send", a.BaseURL, "hello", "--stream", "-v", "--no-cache"}, creds...),
		append([]string{"send", a.BaseURL + lab.LeakyDenied, "hello", "--no-cache"}, creds...),
	}
	for _, use := range []string{"JSONRPC@1.0=" + a.URL(lab.LeakyPathRPCError), "HTTP+JSON@1.0=" + a.URL(lab.LeakyPathREST),
		"JSONRPC@1.0=" + a.URL(lab.LeakyPathRedirect), "GRPC@1.0=" + a.GRPCAddr} {
		for _, o := range []string{"text", "json"} {
			runs = append(runs, append([]string{"send", a.BaseURL, "hello", "-v", "--no-cache", "-o", o, "--use", use}, creds...))
		}
	}
	shown := 0
	for _, args := range runs {
		code, stdout, stderr := runCLI(t, "", args...)
		out := stdout + stderr
		if s := leaked(out); s != "" {
			t.Errorf("%s: exit %d, output shows %q:\n%s", strings.Join(args, " "), code, s, out)
		}
		shown += strings.Count(out, "REDACTED")
	}
	if shown == 0 { // the agent's echo reached no output: the test would prove nothing
		t.Fatal("no output shows REDACTED: the echoed credentials never reached an output")
	}
	spans, _ := rcv.Wait(10*time.Second, func(s []otlptest.Span) bool { return len(s) > 0 })
	if len(spans) == 0 {
		t.Fatal("no span exported")
	}
	status := 0
	for _, s := range spans {
		text := fmt.Sprint(s.Name, s.Attrs, s.Events, s.StatusMessage)
		if l := leaked(text); l != "" {
			t.Errorf("span %s shows %q: %s", s.Name, l, text)
		}
		if strings.Contains(s.StatusMessage, "REDACTED") {
			status++
		}
	}
	if status == 0 {
		t.Error("no span status shows REDACTED: the echoed credentials never reached a span")
	}
}
