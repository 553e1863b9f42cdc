package cli

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
)

// embeddedForms are IPv6 addresses carrying loopback or metadata IPv4 addresses, one
// per form the dial policy unwraps (issue 43), and the Azure WireServer.
var embeddedForms = []string{
	"[64:ff9b::7f00:1]", "[64:ff9b::a9fe:a9fe]", "[64:ff9b::a83f:8110]", "[64:ff9b:1::a9fe:a9fe]",
	"[::ffff:0:7f00:1]", "[::7f00:1]", "[2002:7f00:1::1]", "[2002:a9fe:a9fe::1]",
	"[2001:0:808:808:8000:0:5601:5601]", "168.63.129.16",
}

// embeddedCard writes a card whose interfaces are embeddedForms on port (JSON-RPC, and
// gRPC for the first).
func embeddedCard(t *testing.T, port string) string {
	t.Helper()
	decls := []lab.Decl{{URL: embeddedForms[0] + ":" + port, Binding: lab.GRPC, Version: card.V1}}
	for _, h := range embeddedForms {
		decls = append(decls, lab.Decl{URL: "http://" + h + ":" + port + "/a2a", Binding: lab.JSONRPC, Version: card.V1})
	}
	b, err := json.Marshal(lab.V1Card("embedded", decls...))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "embedded.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEmbeddedAddressesAreNotDialled (issue 43): probe and send refuse every interface
// of a card naming NAT64, SIIT, IPv4-compatible, 6to4 and Teredo forms of loopback and
// metadata addresses (outcome blocked, nothing dialled: a dial would time out here),
// and probe --catalog refuses such a catalog URL and such listed agents; the catalog's
// own loopback server answers only the catalog fetch.
func TestEmbeddedAddressesAreNotDialled(t *testing.T) {
	t.Parallel()
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(closed)
	path := embeddedCard(t, port)
	code, stdout, stderr := probeCLI(t, "", "probe", path, "-o", "json", "--timeout", "10s")
	var out probeOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != ExitFailed {
		t.Fatalf("probe: exit %d, %v; %s", code, err, stderr)
	}
	if len(out.Interfaces) != len(embeddedForms)+1 {
		t.Fatalf("probe reported %d interfaces, want %d", len(out.Interfaces), len(embeddedForms)+1)
	}
	for _, i := range out.Interfaces {
		if i.Outcome != "blocked" {
			t.Errorf("probe %s: %s %q, want blocked", i.URL, i.Outcome, i.Detail)
		}
	}
	code, _, stderr = sendCLI(t, path, "ping", "--timeout", "10s")
	if code != ExitUsage || !strings.Contains(stderr, "blocked") || !strings.Contains(stderr, "NAT64") {
		t.Errorf("send: exit %d, stderr %q; want %d naming the blocked addresses", code, stderr, ExitUsage)
	}

	var requests atomic.Int32
	var entries []string
	for i, h := range embeddedForms {
		entries = append(entries, agentEntry(string(rune('a'+i)), "http://"+h+":"+port+"/"))
	}
	catalog := `{"specVersion": "1.0", "entries": [` + strings.Join(entries, ",") + `]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/ai-catalog+json")
		_, _ = w.Write([]byte(catalog))
	}))
	defer srv.Close()
	code, stdout, stderr = probeCLI(t, "", "probe", "--catalog", srv.URL+"/.well-known/ai-catalog.json", "-o", "json", "--timeout", "10s")
	if code != ExitFailed || strings.Count(stdout, "a2abind does not dial this address") != len(embeddedForms) {
		t.Errorf("probe --catalog: exit %d, want %d with every agent refused:\n%s%s", code, ExitFailed, stdout, stderr)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the catalog's server got %d requests, want the one catalog fetch", n)
	}
	_, catPort, _ := net.SplitHostPort(srv.Listener.Addr().String())
	code, _, stderr = probeCLI(t, "", "probe", "--catalog", "http://[64:ff9b::7f00:1]:"+catPort+"/.well-known/ai-catalog.json")
	if code != ExitUsage || !strings.Contains(stderr, "NAT64") {
		t.Errorf("probe --catalog at a NAT64 form of loopback: exit %d, %q; want %d naming NAT64", code, stderr, ExitUsage)
	}
}
