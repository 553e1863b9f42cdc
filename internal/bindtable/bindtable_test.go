package bindtable_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/bindtable"
)

// TestTableCoversTheHTTPBindings holds the table to a2a's two HTTP bindings in both
// versions a2abind speaks, each with a handler.
func TestTableCoversTheHTTPBindings(t *testing.T) {
	for _, b := range []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON} {
		for _, v := range []string{card.V1, card.V03} {
			if e, ok := bindtable.Table[bindtable.Key{Binding: b, Version: v}]; !ok || e.New == nil {
				t.Errorf("the table has no handler for %s %s", b, v)
			}
		}
	}
	if len(bindtable.Table) != 4 {
		t.Errorf("the table has %d entries, want the 4 above", len(bindtable.Table))
	}
}

// TestMounts: the patterns each route registers.
func TestMounts(t *testing.T) {
	h := http.NotFoundHandler()
	for _, tt := range []struct {
		r    bindtable.Route
		path string
		want []string
	}{
		{bindtable.Exact, "/rpc", []string{"/rpc", "/rpc/{$}"}},
		{bindtable.Exact, "/", []string{"/"}},
		{bindtable.Tree, "/rest", []string{"/rest/"}},
		{bindtable.Tree, "/", []string{"/"}},
		{bindtable.V03Tree, "/rest", []string{"/rest/v1/"}},
		{bindtable.V03Tree, "/", []string{"/v1/"}},
	} {
		var got []string
		for _, m := range tt.r.Mounts(tt.path, h) {
			got = append(got, m.Pattern)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("route %d at %s: %v, want %v", tt.r, tt.path, got, tt.want)
		}
	}
}
