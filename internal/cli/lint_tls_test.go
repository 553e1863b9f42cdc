package cli

import (
	"crypto/tls"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestLintCmd_TLSFlags (issue 24): lint fetches a card from a self-signed agent with
// --insecure or --cacert, as probe does, and refuses it otherwise (exit 2).
func TestLintCmd_TLSFlags(t *testing.T) {
	t.Parallel()
	agent := labtest.Start(t, append(lab.Healthy(), lab.WithTLS())...)
	caFile := peerCertFile(t, agent.HTTPAddr)
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"lint", agent.BaseURL}, ExitUsage},
		{[]string{"lint", agent.BaseURL, "--insecure"}, ExitOK},
		{[]string{"lint", agent.BaseURL, "--cacert", caFile}, ExitOK},
		{[]string{"lint", agent.BaseURL, "--cacert", filepath.Join(t.TempDir(), "nope.pem")}, ExitUsage},
	} {
		if code, out, stderr := runCLI(t, "", tt.args...); code != tt.want {
			t.Errorf("%v: exit %d, want %d\n%s%s", tt.args[2:], code, tt.want, out, stderr)
		}
	}
}

// peerCertFile writes the certificate the TLS server at addr presents to a PEM file, for
// --cacert.
func peerCertFile(t *testing.T, addr string) string {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // fetching the test cert
	if err != nil {
		t.Fatal(err)
	}
	der := conn.ConnectionState().PeerCertificates[0].Raw
	_ = conn.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return caFile
}
