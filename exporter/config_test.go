package exporter

import (
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/addr"
)

// TestParseConfig: good configs load with defaults filled in; bad ones are errors that
// name the setting.
func TestParseConfig(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("A2ABIND_CONFIG_TEST", "xyz")
	c, err := ParseConfig([]byte(`
allowed_targets: ['https://.*\.example\.com']
modules:
  secure:
    timeout: 3s
    max_interfaces: 4
    headers:
      Authorization: {file: ` + token + `, prefix: "Bearer "}
      X-Key: {env: A2ABIND_CONFIG_TEST}
`))
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Modules[DefaultModule]; m.Timeout != DefaultTimeout || m.MaxInterfaces != addr.DefaultMaxInterfaces {
		t.Errorf("default module = %+v, want the defaults", m)
	}
	m := c.Modules["secure"]
	if m.Timeout != 3*time.Second || m.MaxInterfaces != 4 {
		t.Errorf("secure module = %+v", m)
	}
	h, err := m.headers()
	if err != nil {
		t.Fatal(err)
	}
	if got := (http.Header{"Authorization": {"Bearer abc"}, "X-Key": {"xyz"}}); h.Get("Authorization") != got.Get("Authorization") || h.Get("X-Key") != "xyz" {
		t.Errorf("headers = %v", h)
	}
	if c.checkTarget("https://a.example.com") != nil || c.checkTarget("https://a.example.com.evil.net") == nil {
		t.Error("allowed_targets is not anchored at both ends")
	}

	for _, tc := range []struct{ name, doc, want string }{
		{"unknown key", "modules: {default: {timout: 3s}}", "timout"},
		{"bad regexp", "allowed_targets: ['(']", "allowed_targets"},
		{"two sources", "modules: {m: {headers: {A: {env: X, value: y}}}}", "exactly one"},
		{"no source", "modules: {m: {headers: {A: {prefix: y}}}}", "exactly one"},
		{"missing env", "modules: {m: {headers: {A: {env: A2ABIND_NOT_SET_ANYWHERE}}}}", "not set"},
		{"missing file", "modules: {m: {headers: {A: {file: /nonexistent/token}}}}", "no such file"},
		{"line break", "modules: {m: {headers: {A: {value: \"a\\nb\"}}}}", "line break"},
		{"bad header name", "modules: {m: {headers: {'A B': {value: x}}}}", "not valid"},
		{"negative timeout", "modules: {m: {timeout: -1s}}", "negative"},
		{"missing CA file", "modules: {m: {tls: {ca_file: /nonexistent.pem}}}", "ca_file"},
		{"not YAML", "modules: [", "yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseConfig([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseConfig(%q) error = %v, want one mentioning %q", tc.doc, err, tc.want)
			}
		})
	}
}

// TestDialPolicy: the addresses the exporter never dials, and those it does, with and
// without allow_link_local and allow_addresses (addr.DialPolicy decides).
func TestDialPolicy(t *testing.T) {
	for _, tc := range []struct {
		addr      string
		linkLocal bool
		allow     []string
		denied    bool
	}{
		{"169.254.169.254", false, nil, true},
		{"169.254.169.254", true, nil, false},
		{"::ffff:169.254.169.254", false, nil, true},
		{"fe80::1", false, nil, true},
		{"fd00:ec2::254", false, nil, true},
		{"fd00:ec2::254", true, nil, false},
		{"100.100.100.200", false, nil, true},
		{"168.63.129.16", false, nil, true},
		{"168.63.129.16", true, nil, false},
		{"fd20:ce::254", true, nil, false},
		{"64:ff9b::a9fe:a9fe", false, nil, true},
		{"64:ff9b::a9fe:a9fe", true, nil, true}, // allowed as the address dialled, not as the one carried
		{"2002:7f00:1::1", false, nil, true},
		{"64:ff9b::808:808", false, nil, false},
		{"0.0.0.0", true, nil, true},
		{"0.0.0.0", false, []string{"0.0.0.0"}, false},
		{"::", true, nil, true},
		{"224.0.0.1", true, nil, true},
		{"127.0.0.1", false, nil, false},
		{"::1", false, nil, false},
		{"10.1.2.3", false, nil, false},
		{"192.168.1.1", false, nil, false},
		{"93.184.216.34", false, nil, false},
	} {
		cfg := &Config{AllowLinkLocal: tc.linkLocal, AllowAddresses: tc.allow}
		if err := cfg.check(); err != nil {
			t.Fatal(err)
		}
		err := cfg.dial.CheckIP(netip.MustParseAddr(tc.addr))
		if got := err != nil; got != tc.denied {
			t.Errorf("%s (allow_link_local %v, allow_addresses %v): denied = %v (%v), want %v", tc.addr, tc.linkLocal, tc.allow, got, err, tc.denied)
		}
		// the refusal names the exporter's own way to allow an address, not a CLI flag
		if err != nil && (strings.Contains(err.Error(), "--allow-address") || !strings.Contains(err.Error(), "allow_addresses")) {
			t.Errorf("%s: refusal %q, want it to name allow_addresses, not --allow-address", tc.addr, err)
		}
	}
	if _, err := ParseConfig([]byte("allow_addresses: ['not an address']")); err == nil {
		t.Error("ParseConfig accepted an allow_addresses entry that is no host, IP or CIDR")
	}
}

// TestBudget: the scrape timeout Prometheus sends shortens the module's timeout, with a
// margin; a missing or nonsensical header leaves it.
func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"", 10 * time.Second},
		{"x", 10 * time.Second},
		{"-1", 10 * time.Second},
		{"60", 10 * time.Second},
		{"5", 4500 * time.Millisecond},
		{"1", 900 * time.Millisecond},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set(scrapeTimeoutHeader, tc.header)
		}
		if got := budget(h, 10*time.Second); got != tc.want {
			t.Errorf("budget(%q) = %s, want %s", tc.header, got, tc.want)
		}
	}
}
