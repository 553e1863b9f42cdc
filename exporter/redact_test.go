package exporter_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/a2abind/a2abind/exporter"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/internal/telemetry/otlptest"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// The module credentials and the target's api_key of TestProbe_NoSecretRepeated.
const (
	leakToken  = "tok-Wq2Er3Ty4Ui5Op6As7Df8Gh9Jk0Lz"
	leakAPIKey = "apikey-Mn1Bv2Cx3Za4Sd5Fg"
	leakQuery  = "qk-Pl9Ok8Ij7Uh6Yg5"
	leakPass   = "pw-Hidden-4242"
)

// syncBuffer is a log sink the exporter's handlers write to concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestProbe_NoSecretRepeated: probing an agent that echoes every credential it receives
// (lab.Leaky: 401 bodies, a JSON-RPC error, WWW-Authenticate, a gRPC status, a
// redirect's Location, on the card fetch and the interfaces), the exporter shows none of
// its module's header values nor the target's api_key: not in the series, the debug
// output, the recent-probes page, /logs, its log, nor the spans it exports.
func TestProbe_NoSecretRepeated(t *testing.T) {
	t.Setenv("A2ABIND_LEAK_TOKEN", "Bearer "+leakToken)
	t.Setenv("A2ABIND_LEAK_KEY", leakAPIKey)
	a := labtest.Start(t, lab.Leaky()...)
	rcv := otlptest.Start(t)
	rcv.Env(t, "http/protobuf")
	tel, err := telemetry.Setup(context.Background())
	if err != nil || !tel.Enabled() {
		t.Fatalf("Setup: %v", err)
	}
	cfg := mustConfig(t, `
modules:
  default:
    credential_hosts: [127.0.0.1]
    headers: {Authorization: {env: A2ABIND_LEAK_TOKEN}, X-Api-Key: {env: A2ABIND_LEAK_KEY}}
`)
	var logs syncBuffer
	x := exporter.New(cfg, exporter.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	srv := httptest.NewServer(x)
	t.Cleanup(func() { srv.Close(); _ = x.Close() })

	var out strings.Builder
	for _, target := range []string{a.BaseURL + "/?api_key=" + leakQuery, a.BaseURL + lab.LeakyDenied, a.BaseURL + lab.LeakyAway,
		strings.Replace(a.BaseURL, "http://", "http://alice:"+leakPass+"@", 1)} {
		for _, debug := range []string{"", "&debug=true"} {
			_, body, _ := get(t, srv.URL+probePath(target)+debug)
			out.WriteString(body + "\n")
		}
	}
	_, page, _ := get(t, srv.URL+"/")
	out.WriteString(page)
	for _, id := range regexp.MustCompile(`logs\?id=(\d+)`).FindAllStringSubmatch(page, -1) {
		_, body, _ := get(t, srv.URL+"/logs?id="+id[1])
		out.WriteString(body)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := rcv.Spans()
	for _, s := range spans {
		fmt.Fprint(&out, s.Name, s.Attrs, s.Events, s.StatusMessage, "\n")
	}
	all := out.String() + logs.String()
	for _, s := range []string{leakToken, leakToken[:len(leakToken)/2+1], leakToken[len(leakToken)/2-1:], leakAPIKey, leakQuery, leakPass} {
		if strings.Contains(all, s) {
			t.Errorf("%q shown:\n%s", s, all)
		}
	}
	// The echoes reached each output, hidden: else the test proves nothing.
	for name, text := range map[string]string{"debug and /logs": out.String(), "log": logs.String()} {
		if !strings.Contains(text, "REDACTED") {
			t.Errorf("%s: no REDACTED: the agent's echo never reached it:\n%s", name, text)
		}
	}
	if len(spans) == 0 {
		t.Error("no span exported")
	}
}
