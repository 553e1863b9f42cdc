package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/signature"
)

// TestKeyCmd (issue 24): key generate writes PKCS#8 PEM at 0600 for each type and never
// overwrites; key jwks prints each key's kid, the one sign writes by default, so sign,
// the JWKS and lint agree without flags; a signer's chosen kid in a JWKS verifies too.
func TestKeyCmd(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cardFile := cardPath("v1-healthy.json")
	for _, tt := range []struct{ kind, alg string }{{"", "ES256"}, {"ed25519", "EdDSA"}, {"rsa", "RS256"}} {
		name := tt.kind
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			keyFile := filepath.Join(dir, name+".pem")
			args := []string{"key", "generate", keyFile}
			if tt.kind != "" {
				args = append(args, "--type", tt.kind)
			}
			if tt.kind == "rsa" {
				args = append(args, "--bits", "2048") // the size is not what is tested; keep it fast
			}
			code, out, stderr := runCLI(t, "", args...)
			if code != ExitOK || !strings.Contains(out, tt.alg) {
				t.Fatalf("key generate: exit %d\n%s%s", code, out, stderr)
			}
			st, err := os.Stat(keyFile)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("key file: %v, mode %v, want 0600", err, st.Mode())
			}
			pemBytes, _ := os.ReadFile(keyFile)
			if !strings.HasPrefix(string(pemBytes), "-----BEGIN PRIVATE KEY-----") {
				t.Fatalf("not PKCS#8 PEM:\n%s", pemBytes)
			}
			if code, _, stderr := runCLI(t, "", args...); code != ExitUsage || !strings.Contains(stderr, "never overwrites") {
				t.Fatalf("second key generate: exit %d, %s", code, stderr)
			}
			if after, _ := os.ReadFile(keyFile); string(after) != string(pemBytes) {
				t.Fatal("key generate overwrote the key")
			}

			code, jwks, stderr := runCLI(t, "", "key", "jwks", keyFile)
			if code != ExitOK {
				t.Fatalf("key jwks: exit %d %s", code, stderr)
			}
			var set struct {
				Keys []struct {
					Kid, Alg, Use string
					D             string `json:"d"`
				} `json:"keys"`
			}
			if err := json.Unmarshal([]byte(jwks), &set); err != nil || len(set.Keys) != 1 || set.Keys[0].D != "" || set.Keys[0].Alg != tt.alg || set.Keys[0].Use != "sig" {
				t.Fatalf("key jwks = %s (%v)", jwks, err)
			}
			k, _ := signature.LoadSigningKey(keyFile)
			if set.Keys[0].Kid == "" || set.Keys[0].Kid != k.KeyID {
				t.Fatalf("kid %q, sign writes %q", set.Keys[0].Kid, k.KeyID)
			}
			jwksFile := filepath.Join(dir, name+".jwks.json")
			if err := os.WriteFile(jwksFile, []byte(jwks), 0o600); err != nil {
				t.Fatal(err)
			}
			code, signed, stderr := runCLI(t, "", "sign", cardFile, "--key", keyFile)
			if code != ExitOK {
				t.Fatalf("sign: exit %d %s", code, stderr)
			}
			code, out, _ = runCLI(t, signed, "lint", "-", "--jwks", jwksFile, "--require-signature")
			if code != ExitOK || !strings.Contains(out, "signature-valid") {
				t.Fatalf("lint of the signed card with key jwks: exit %d\n%s", code, out)
			}
		})
	}

	// A JWKS written with the signer's own kid verifies a card signed with --kid.
	keyFile := filepath.Join(dir, "default.pem")
	k, err := signature.LoadSigningKey(keyFile)
	if err != nil {
		t.Skip("the default key was not generated")
	}
	k.KeyID = "team-2026"
	set, _ := signature.PublicJWKS(k)
	jwksFile := filepath.Join(dir, "chosen.jwks.json")
	if err := os.WriteFile(jwksFile, set, 0o600); err != nil {
		t.Fatal(err)
	}
	_, signed, _ := runCLI(t, "", "sign", cardFile, "--key", keyFile, "--kid", "team-2026")
	if code, out, _ := runCLI(t, signed, "lint", "-", "--jwks", jwksFile, "--require-signature"); code != ExitOK || !strings.Contains(out, `kid "team-2026"`) {
		t.Fatalf("lint with the chosen kid: exit %d\n%s", code, out)
	}
}

// TestKeyGenerateSizes (issue 43, 6c): an RSA size outside 2048-8192 is a usage error
// before any key is made (100,000 bits used to run for hours), and --bits with a type it
// does not size is a usage error rather than silently ignored. No file is written.
func TestKeyGenerateSizes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--type", "rsa", "--bits", "100000"}, "2048 to 8192"},
		{[]string{"--type", "rsa", "--bits", "8193"}, "2048 to 8192"},
		{[]string{"--type", "rsa", "--bits", "1024"}, "2048 to 8192"},
		{[]string{"--type", "rsa", "--bits", "-1"}, "2048 to 8192"},
		{[]string{"--bits", "4096"}, "RSA keys only"},
		{[]string{"--type", "ec", "--bits", "256"}, "RSA keys only"},
		{[]string{"--type", "ed25519", "--bits", "2048"}, "RSA keys only"},
	} {
		keyFile := filepath.Join(dir, strconv.Itoa(i)+".pem")
		code, out, stderr := runCLI(t, "", append([]string{"key", "generate", keyFile}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("key generate %v: exit %d, want %d with %q\n%s%s", tt.args, code, ExitUsage, tt.want, out, stderr)
		}
		if _, err := os.Stat(keyFile); err == nil {
			t.Errorf("key generate %v wrote %s", tt.args, keyFile)
		}
	}
}
