package exporter

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/signature"
)

// DefaultModule is the module a /probe request without ?module= uses. A config that
// defines no module named so gets one with the defaults.
const DefaultModule = "default"

// DefaultTimeout is a module's probe budget when its config sets none. A scrape timeout
// shorter than it (X-Prometheus-Scrape-Timeout-Seconds) wins.
const DefaultTimeout = 10 * time.Second

// DefaultMaxConcurrentProbes bounds the /probe requests probed at once when the config
// sets no max_concurrent_probes. A request beyond it waits for a slot for up to half of
// its scrape's time, holding nothing yet (each running probe holds a card, up to 1 MiB,
// and its interfaces' answers), and is answered 503 with Retry-After only then.
const DefaultMaxConcurrentProbes = 16

// maxConfigBytes and maxSecretBytes bound the config file and each credential file.
const (
	maxConfigBytes = 1 << 20
	maxSecretBytes = 64 << 10
)

// Config is the exporter's configuration file (YAML).
//
//	allowed_targets: ['https://[a-z0-9-]+\.agents\.example\.com(/.*)?']
//	max_concurrent_probes: 16
//	modules:
//	  default:
//	    timeout: 5s
//	    credential_hosts: [agents.example.com]
//	    headers:
//	      Authorization: {file: /run/secrets/a2a-token, prefix: "Bearer "}
//	    tls: {ca_file: /etc/a2abind/ca.pem}
type Config struct {
	// AllowedTargets are regular expressions, anchored at both ends, that a /probe
	// target must match; none means any http(s) target. They also bound where a probe
	// goes next: a card redirect that leaves the target's origin, and an interface on
	// another host, must match one too (an interface matches by its URL or by its
	// origin, scheme://host[:port]). Link-local and metadata addresses are refused
	// whatever they say, unless AllowLinkLocal.
	AllowedTargets []string `yaml:"allowed_targets"`
	// MaxConcurrentProbes bounds the /probe requests probed at once; a request beyond
	// it waits up to half of its time for a slot, then is answered 503.
	// DefaultMaxConcurrentProbes when 0.
	MaxConcurrentProbes int `yaml:"max_concurrent_probes"`
	// AllowLinkLocal lets probes dial link-local addresses (169.254.0.0/16, fe80::/10,
	// cloud metadata endpoints among them) and the cloud metadata IPs outside those
	// ranges (addr.MetadataRanges). Off by default: /probe makes the exporter dial whatever a request or a card
	// names. Metadata host names (metadata.google.internal, ...) stay refused.
	AllowLinkLocal bool `yaml:"allow_link_local"`
	// AllowAddresses lets probes dial these refused hosts, IPs or CIDRs anyway, as the
	// CLI's --allow-address does (addr.NewDialPolicy).
	AllowAddresses []string `yaml:"allow_addresses"`
	// Modules are the probe settings a /probe request picks with ?module=NAME.
	Modules map[string]Module `yaml:"modules"`
	// Discovery lists the agents GET /sd gives Prometheus.
	Discovery Discovery `yaml:"discovery"`

	allowed []*regexp.Regexp
	dial    *addr.DialPolicy
}

// Module is one set of probe settings.
type Module struct {
	// Timeout bounds the whole probe (card fetch and interfaces); DefaultTimeout when 0.
	Timeout time.Duration `yaml:"timeout"`
	// Headers are sent with the card fetch and every probe request (gRPC metadata too),
	// each value read from a file or the environment at every probe, or given inline.
	// They are credentials: a module that sets them must say where they may go, in
	// CredentialHosts or in the config's AllowedTargets, or the config is refused.
	Headers map[string]Secret `yaml:"headers"`
	// CredentialHosts are the hosts ("host", any port, or "host:port") the Headers may
	// go to. With them, a /probe target on another host is refused (403), and the
	// headers go to an interface only on one of these hosts. Without them (the config
	// then has AllowedTargets), the headers go to the target's origin only.
	CredentialHosts []string `yaml:"credential_hosts"`
	// TLS configures certificate verification.
	TLS TLS `yaml:"tls"`
	// Signatures names the keys a card's signatures are verified with
	// (a2abind_card_signature); without keys a signed card is "unverified".
	Signatures Signatures `yaml:"signatures"`
	// MaxInterfaces bounds the interfaces probed per card (addr.DefaultMaxInterfaces when 0).
	MaxInterfaces int `yaml:"max_interfaces"`

	roots *x509.CertPool
}

// Secret is a header value: exactly one of File, Env or Value, with an optional Prefix
// (for example "Bearer ") put before it. A file's trailing newline is dropped.
type Secret struct {
	File   string `yaml:"file"`
	Env    string `yaml:"env"`
	Value  string `yaml:"value"`
	Prefix string `yaml:"prefix"`
}

// Signatures are the keys trusted to sign the cards a module probes, as probe's --jwks
// and --jku-origin.
type Signatures struct {
	// JWKS are JWKS files of trusted public keys, read at start.
	JWKS []string `yaml:"jwks"`
	// JKUOrigins lets a signature's jku be fetched when it is an https URL on one of
	// these origins ("https://keys.example.com").
	JKUOrigins []string `yaml:"jku_origins"`

	keys []*signature.KeySet
}

// TLS is a module's certificate verification.
type TLS struct {
	// InsecureSkipVerify accepts any certificate.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
	// CAFile is a PEM file of the CAs to trust instead of the system roots.
	CAFile string `yaml:"ca_file"`
}

// LoadConfig reads and checks a config file.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("exporter config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("exporter config %s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("exporter config %s: over %d bytes", path, maxConfigBytes)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("exporter config %s: %w", path, err)
	}
	return c, nil
}

// ParseConfig reads and checks a config document. Unknown keys are errors, so a
// misspelt setting is not silently ignored.
func ParseConfig(data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, suggestKeys(err)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// DefaultConfig is the configuration without a file: one default module, any http(s)
// target, link-local addresses refused.
func DefaultConfig() *Config {
	c := &Config{}
	_ = c.check() // cannot fail: nothing to check
	return c
}

// check validates c and compiles what it needs.
func (c *Config) check() error {
	c.allowed = c.allowed[:0]
	for _, p := range c.AllowedTargets {
		re, err := regexp.Compile("^(?:" + p + ")$")
		if err != nil {
			return fmt.Errorf("allowed_targets %q: %w", p, err)
		}
		c.allowed = append(c.allowed, re)
	}
	allow := slices.Clone(c.AllowAddresses)
	if c.AllowLinkLocal {
		allow = append(allow, addr.MetadataRanges()...)
	}
	dial, err := addr.NewDialPolicy(allow...)
	if err != nil {
		return fmt.Errorf("allow_addresses: %w", err)
	}
	c.dial = dial.Hinted("allow_addresses in the exporter's config file")
	if c.MaxConcurrentProbes < 0 {
		return fmt.Errorf("max_concurrent_probes %d is negative", c.MaxConcurrentProbes)
	}
	if c.MaxConcurrentProbes == 0 {
		c.MaxConcurrentProbes = DefaultMaxConcurrentProbes
	}
	if c.Modules == nil {
		c.Modules = map[string]Module{}
	}
	if _, ok := c.Modules[DefaultModule]; !ok {
		c.Modules[DefaultModule] = Module{}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Modules)) {
		m := c.Modules[name]
		if err := m.check(); err != nil {
			return fmt.Errorf("module %q: %w", name, err)
		}
		if len(m.Headers) > 0 && len(m.CredentialHosts) == 0 && len(c.allowed) == 0 {
			return fmt.Errorf("module %q sends headers (%s) but does not say where they may go: "+
				"without it any /probe client could have them sent to a host it names; "+
				"set the module's credential_hosts or the config's allowed_targets",
				name, strings.Join(slices.Sorted(maps.Keys(m.Headers)), ", "))
		}
		c.Modules[name] = m
	}
	return c.Discovery.check(c)
}

func (m *Module) check() error {
	if m.Timeout < 0 {
		return fmt.Errorf("timeout %s is negative", m.Timeout)
	}
	if m.Timeout == 0 {
		m.Timeout = DefaultTimeout
	}
	if m.MaxInterfaces < 0 {
		return fmt.Errorf("max_interfaces %d is negative", m.MaxInterfaces)
	}
	if m.MaxInterfaces == 0 {
		m.MaxInterfaces = addr.DefaultMaxInterfaces
	}
	for _, h := range m.CredentialHosts {
		if h = strings.TrimSpace(h); h == "" || strings.Contains(h, "/") {
			return fmt.Errorf("credential_hosts entry %q is not a host or host:port", h)
		}
	}
	for name, s := range m.Headers {
		if name == "" || strings.ContainsAny(name, " :\r\n") {
			return fmt.Errorf("header name %q is not valid", name)
		}
		if _, err := s.read(); err != nil {
			return fmt.Errorf("header %s: %w", name, err)
		}
	}
	m.Signatures.keys = nil
	for _, path := range m.Signatures.JWKS {
		ks, err := signature.LoadKeySet(path)
		if err != nil {
			return fmt.Errorf("signatures.jwks: %w", err)
		}
		m.Signatures.keys = append(m.Signatures.keys, ks)
	}
	if m.TLS.CAFile != "" {
		pem, err := os.ReadFile(m.TLS.CAFile)
		if err != nil {
			return fmt.Errorf("tls.ca_file: %w", err)
		}
		m.roots = x509.NewCertPool()
		if !m.roots.AppendCertsFromPEM(pem) {
			return fmt.Errorf("tls.ca_file %s: no PEM certificate in it", m.TLS.CAFile)
		}
	}
	return nil
}

// read returns the header value, read now from its file or environment variable.
func (s Secret) read() (string, error) {
	set := 0
	for _, v := range []string{s.File, s.Env, s.Value} {
		if v != "" {
			set++
		}
	}
	if set != 1 {
		return "", errors.New("set exactly one of file, env and value")
	}
	var v string
	switch {
	case s.File != "":
		f, err := os.Open(s.File)
		if err != nil {
			return "", err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxSecretBytes+1))
		if err != nil {
			return "", err
		}
		if len(b) > maxSecretBytes {
			return "", fmt.Errorf("%s is over %d bytes", s.File, maxSecretBytes)
		}
		v = strings.TrimRight(string(b), "\r\n")
	case s.Env != "":
		var ok bool
		if v, ok = os.LookupEnv(s.Env); !ok {
			return "", fmt.Errorf("environment variable %s is not set", s.Env)
		}
	default:
		v = s.Value
	}
	v = s.Prefix + v
	if strings.ContainsAny(v, "\r\n\x00") {
		return "", errors.New("the value holds a line break or NUL")
	}
	return v, nil
}

// headers reads every header of m now.
func (m Module) headers() (http.Header, error) {
	h := http.Header{}
	for name, s := range m.Headers {
		v, err := s.read()
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", name, err)
		}
		h.Add(name, v)
	}
	return h, nil
}
