package delegate

import (
	"encoding/json"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/go-cmp/cmp"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
)

func mustCard(t *testing.T, doc any) *card.Card {
	t.Helper()
	b, ok := doc.([]byte)
	if !ok {
		var err error
		if b, err = json.Marshal(doc); err != nil {
			t.Fatal(err)
		}
	}
	c, err := card.Parse(b)
	if err != nil {
		t.Fatalf("card.Parse() error = %v", err)
	}
	return c
}

func TestCandidates(t *testing.T) {
	union, err := lab.UnionCard("u",
		lab.Decl{URL: "http://h:1/v1", Binding: lab.JSONRPC, Version: card.V1},
		lab.Decl{URL: "h:2", Binding: lab.GRPC, Version: card.V1},
		lab.Decl{URL: "http://h:1/v03", Binding: lab.JSONRPC, Version: card.V03},
		lab.Decl{URL: "h:2", Binding: lab.GRPC, Version: card.V03})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		doc         any
		bindings    []a2a.TransportProtocol
		want        []string
		wantSkipped int
	}{
		{
			name: "seed v0.3: the hint selects the declared gRPC interface, url is not assumed to serve gRPC",
			doc: lab.V03Card("seed", "http://h:8443", lab.GRPC,
				lab.Decl{URL: "http://h:8443", Binding: lab.JSONRPC}, lab.Decl{URL: "h:9443", Binding: lab.GRPC}),
			want:        []string{"GRPC 0.3 at h:9443", "JSONRPC 0.3 at http://h:8443"},
			wantSkipped: 1,
		},
		{
			name: "v0.3 url alone",
			doc:  lab.V03Card("one", "http://h:1/a2a", ""),
			want: []string{"JSONRPC 0.3 at http://h:1/a2a"},
		},
		{
			name: "v0.3 primary not contradicted: hint group first, primary leading it",
			doc: lab.V03Card("p", "h:1", lab.GRPC,
				lab.Decl{URL: "http://h:2/rpc", Binding: lab.JSONRPC}, lab.Decl{URL: "h:3", Binding: lab.GRPC}),
			want: []string{"GRPC 0.3 at h:1", "GRPC 0.3 at h:3", "JSONRPC 0.3 at http://h:2/rpc"},
		},
		{
			name: "v0.3 primary repeated in additionalInterfaces",
			doc: lab.V03Card("r", "http://h:1/rpc", lab.JSONRPC,
				lab.Decl{URL: "http://h:1/rpc", Binding: lab.JSONRPC}, lab.Decl{URL: "h:3", Binding: lab.GRPC}),
			want: []string{"JSONRPC 0.3 at http://h:1/rpc", "GRPC 0.3 at h:3"},
		},
		{
			name: "seed v1.0: card order",
			doc: lab.V1Card("seed1",
				lab.Decl{URL: "http://h:8443", Binding: lab.GRPC, Version: card.V1},
				lab.Decl{URL: "http://h:8443", Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: "h:9443", Binding: lab.GRPC, Version: card.V1}),
			want: []string{"GRPC 1.0 at http://h:8443", "JSONRPC 1.0 at http://h:8443", "GRPC 1.0 at h:9443"},
		},
		{
			name: "unsupported versions, bindings and URLs are skipped; binding case is forgiven",
			doc: lab.V1Card("odd",
				lab.Decl{URL: "http://h:1", Binding: lab.JSONRPC, Version: "2.0"},
				lab.Decl{URL: "http://h:1", Binding: "urn:custom", Version: card.V1},
				lab.Decl{URL: "http://h:1", Binding: lab.JSONRPC},
				lab.Decl{URL: "h", Binding: lab.GRPC, Version: card.V1},
				lab.Decl{URL: "ftp://h:1", Binding: lab.HTTPJSON, Version: card.V1},
				lab.Decl{URL: "h:2", Binding: "grpc", Version: card.V1}),
			want:        []string{"GRPC 1.0 at h:2"},
			wantSkipped: 5,
		},
		{
			name: "caller restricts and reorders bindings",
			doc: lab.V1Card("all",
				lab.Decl{URL: "http://h:1/rpc", Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: "h:2", Binding: lab.GRPC, Version: card.V1},
				lab.Decl{URL: "http://h:1/rest", Binding: lab.HTTPJSON, Version: card.V1},
				lab.Decl{URL: "h:3", Binding: lab.GRPC, Version: card.V1}),
			bindings:    []a2a.TransportProtocol{"grpc", lab.JSONRPC},
			want:        []string{"GRPC 1.0 at h:2", "GRPC 1.0 at h:3", "JSONRPC 1.0 at http://h:1/rpc"},
			wantSkipped: 1,
		},
		{
			name: "union card: v1.0 entries, then v0.3",
			doc:  union,
			want: []string{"JSONRPC 1.0 at http://h:1/v1", "GRPC 1.0 at h:2", "JSONRPC 0.3 at http://h:1/v03", "GRPC 0.3 at h:2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped := candidates(mustCard(t, tt.doc), tt.bindings, nil)
			var names []string
			for _, i := range got {
				names = append(names, i.String())
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("candidates() (-want +got):\n%s", diff)
			}
			if len(skipped) != tt.wantSkipped {
				t.Errorf("candidates() skipped %v, want %d", skipped, tt.wantSkipped)
			}
		})
	}
}
