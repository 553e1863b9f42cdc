package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
)

// metadataCard writes a card file whose only interfaces are a metadata address and
// 0.0.0.0 on a closed port.
func metadataCard(t *testing.T) string {
	t.Helper()
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(closed, ":")
	b, err := json.Marshal(lab.V1Card("meta",
		lab.Decl{URL: "http://169.254.169.254/latest/meta-data/", Binding: lab.JSONRPC, Version: card.V1},
		lab.Decl{URL: "http://0.0.0.0:" + port + "/a2a", Binding: lab.JSONRPC, Version: card.V1}))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "meta.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProbeBlocksRefusedAddresses(t *testing.T) {
	t.Parallel()
	path := metadataCard(t)
	code, stdout, stderr := probeCLI(t, "", "probe", path, "-o", "json", "--timeout", "10s")
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d; %s", code, ExitFailed, stderr)
	}
	var out probeOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	for _, i := range out.Interfaces {
		if i.Outcome != "blocked" || !strings.Contains(i.Detail, "--allow-address") {
			t.Errorf("%s: %s %q, want blocked, naming --allow-address", i.URL, i.Outcome, i.Detail)
		}
	}
	// Allowed, 0.0.0.0 is dialled (and refused: the port is closed).
	code, stdout, _ = probeCLI(t, "", "probe", path, "-o", "json", "--timeout", "10s", "--allow-address", "0.0.0.0")
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != ExitFailed {
		t.Fatalf("exit %d, %v", code, err)
	}
	if got := out.Interfaces[1].Outcome; got != "refused" {
		t.Errorf("0.0.0.0 allowed: outcome %s, want refused", got)
	}
}

func TestSendWithOnlyRefusedAddresses(t *testing.T) {
	t.Parallel()
	code, _, stderr := sendCLI(t, metadataCard(t), "ping", "--timeout", "10s")
	if code != ExitUsage || !strings.Contains(stderr, "blocked") || !strings.Contains(stderr, "169.254.169.254") {
		t.Errorf("exit %d, stderr %q; want %d naming the blocked addresses", code, stderr, ExitUsage)
	}
}

func TestAddressFlagsUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"probe", "x.json", "--allow-address", "http://h/"},
		{"send", "x.json", "hi", "--allow-address", "h:1"},
		{"probe", "x.json", "--max-interfaces", "-1"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != ExitUsage || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want %d with a message", args, code, stderr, ExitUsage)
		}
	}
}

// TestConnFlagsParseOnce: the connection flag group turns the flags of every command
// that has it into one addr.Conn, with no agent involved: headers, CA file, insecure,
// credential hosts, allowed addresses and the interface bound; bad values are errors
// naming the flag.
func TestConnFlagsParseOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"probe", "send"} {
		var f connFlags
		fl := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
		f.register(fl, "header")
		err := fl.Parse([]string{"-H", "Authorization: Bearer x", "--header", "X-A: 1", "--insecure",
			"--credential-host", "h.example", "--allow-address", "169.254.0.0/16", "--max-interfaces", "5"})
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.conn(nil)
		switch {
		case err != nil:
			t.Fatalf("%s: %v", cmd, err)
		case c.Header.Get("Authorization") != "Bearer x" || c.Header.Get("X-A") != "1" || !c.Insecure ||
			len(c.CredentialHosts) != 1 || c.Interfaces() != 5:
			t.Errorf("%s: conn = %+v", cmd, c)
		case c.Dial.CheckHost("169.254.169.254") != nil || c.Dial.CheckHost("fe80::1") == nil:
			t.Errorf("%s: --allow-address 169.254.0.0/16 not in the dial policy", cmd)
		}
	}
	for _, bad := range []struct {
		args []string
		flag string
	}{
		{[]string{"-H", "no colon"}, "--header"},
		{[]string{"-H", ": v"}, "--header"},
		{[]string{"--cacert", filepath.Join(dir, "missing.pem")}, "--cacert"},
		{[]string{"--cacert", notPEM}, "--cacert"},
		{[]string{"--allow-address", "http://h/"}, "--allow-address"},
		{[]string{"--max-interfaces", "-1"}, "--max-interfaces"},
	} {
		var f connFlags
		fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
		f.register(fl, "header")
		if err := fl.Parse(bad.args); err != nil {
			t.Fatal(err)
		}
		if _, err := f.conn(nil); err == nil || !strings.Contains(err.Error(), bad.flag) {
			t.Errorf("%v: error %v, want one naming %s", bad.args, err, bad.flag)
		}
	}
}

// TestConnFlagsHaveOneHome: -H, --cacert, --insecure and --credential-host are
// registered and parsed in addrflags.go only; a command takes the group, never its own
// copy.
func TestConnFlagsHaveOneHome(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "addrflags.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, flag := range []string{`"header", "H"`, `"cacert"`, `"insecure"`, `"credential-host"`, `"allow-address"`, `"max-interfaces"`, "AppendCertsFromPEM"} {
			if strings.Contains(string(src), flag) {
				t.Errorf("%s registers or parses %s itself; use connFlags (addrflags.go)", f, flag)
			}
		}
	}
}
