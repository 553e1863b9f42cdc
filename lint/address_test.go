package lint_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lint"
)

// Lint reads gRPC addresses through the address model: A2A v1.0.1's hostname:port is
// clean; grpc://, grpcs://, http:// and https:// are addresses (not url-not-absolute)
// that Go clients misread, so lint warns with grpc-url-scheme and suggests host:port.
func TestLintGRPCForms(t *testing.T) {
	tests := []struct {
		url   string
		codes []string // URL findings expected for the interface
		fix   string
	}{
		{"agent.example.com:443", nil, ""},
		{"dns:///agent.example.com:443", nil, ""},
		{"grpcs://agent.example.com:8443", []string{"grpc-url-scheme"}, `write the GRPC address as "agent.example.com:8443" (A2A v1.0.1: host:port)`},
		{"grpc://agent.example.com", []string{"grpc-url-scheme"}, `write the GRPC address as "agent.example.com:80" (A2A v1.0.1: host:port)`},
		{"https://agent.example.com", []string{"grpc-url-scheme"}, `write the GRPC address as "agent.example.com:443" (A2A v1.0.1: host:port)`},
		{"agent.example.com", []string{"url-not-absolute"}, `write the GRPC address as host:port, e.g. "agent.example.com:443"`},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			b, err := json.Marshal(lab.V1Card("g", lab.Decl{URL: tt.url, Binding: lab.GRPC, Version: card.V1}))
			if err != nil {
				t.Fatal(err)
			}
			c, err := card.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			var codes []string
			fix := ""
			for _, f := range lint.Lint(c) {
				if f.Code == "grpc-url-scheme" || f.Code == "url-not-absolute" {
					codes = append(codes, f.Code)
					fix = f.Fix
				}
			}
			if !slices.Equal(codes, tt.codes) || fix != tt.fix {
				t.Errorf("Lint(GRPC at %q) = %v fix %q, want %v fix %q", tt.url, codes, fix, tt.codes, tt.fix)
			}
		})
	}
}

// TestLintConflictWithPath (issue 24): one URL with a path (a2a-js serves JSON-RPC at
// /a2a/jsonrpc) declared for GRPC and JSONRPC is url-conflicting-bindings, as it is
// without a path; a bare GRPC host:port on the same socket is not (one TLS front end
// may serve both).
func TestLintConflictWithPath(t *testing.T) {
	for _, tt := range []struct {
		url, grpc string
		want      bool
	}{
		{"https://agent.example.com:8443/a2a/jsonrpc", "https://agent.example.com:8443/a2a/jsonrpc", true},
		{"https://agent.example.com:8443/a2a/jsonrpc/", "https://agent.example.com:8443/a2a/jsonrpc", true},
		{"https://agent.example.com:8443", "https://agent.example.com:8443", true},
		{"https://agent.example.com:8443/a2a/jsonrpc", "agent.example.com:8443", false},
		{"https://agent.example.com/a2a/jsonrpc", "https://agent.example.com/a2a/grpc", false},
	} {
		doc, err := json.Marshal(lab.V03Card("c", tt.url, lab.JSONRPC, lab.Decl{URL: tt.grpc, Binding: lab.GRPC}))
		if err != nil {
			t.Fatal(err)
		}
		c, err := card.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(lint.Lint(c), func(f card.Finding) bool { return f.Code == card.CodeURLConflictingBindings })
		if got != tt.want {
			t.Errorf("url %s, GRPC %s: url-conflicting-bindings %v, want %v", tt.url, tt.grpc, got, tt.want)
		}
	}
}

// TestLintGRPCSchemeFixNamesTheGRPCPort: on the seed card, url (JSON-RPC's socket,
// :8443) is also declared as GRPC, and GRPC is declared at :9443 too. The
// grpc-url-scheme fix for url must point at the gRPC port the other findings name, not
// suggest dialling gRPC at the JSON-RPC socket.
func TestLintGRPCSchemeFixNamesTheGRPCPort(t *testing.T) {
	c, err := card.Load(t.Context(), "../testdata/cards/seed-v03.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range lint.Lint(c) {
		if f.Code != card.CodeGRPCURLScheme {
			continue
		}
		if strings.Contains(f.Fix, "agent.internal:8443") || !strings.Contains(f.Fix, `"agent.internal:9443"`) {
			t.Errorf("%s fix %q: want the gRPC port 9443, never the JSON-RPC socket 8443", f.Interface, f.Fix)
		}
	}
}
