package lab

import (
	"slices"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
)

// TestBindingsCoverA2ATransports holds the lab's gRPC tables to both versions a2abind
// speaks: grpcServices and the GRPCMode table (the HTTP bindings are internal/bindtable').
func TestBindingsCoverA2ATransports(t *testing.T) {
	for _, v := range []string{card.V1, card.V03} {
		if grpcServices[v] == nil {
			t.Errorf("grpcServices has no %s", v)
		}
	}
	for mode, versions := range grpcModeVersions {
		for _, v := range versions {
			if grpcServices[v] == nil {
				t.Errorf("GRPCMode %d registers version %s, which grpcServices lacks", mode, v)
			}
		}
	}
	if !slices.Equal(grpcModeVersions[GRPCBoth], []string{card.V1, card.V03}) {
		t.Errorf("GRPCBoth registers %v", grpcModeVersions[GRPCBoth])
	}
}

// TestStartRefusesAnUnregisteredBinding: a mount the tables do not know is an error that
// names it, before any listener opens.
func TestStartRefusesAnUnregisteredBinding(t *testing.T) {
	for _, o := range []Option{WithJSONRPC("2.0", PathJSONRPC), WithGRPC(GRPCMode(99))} {
		a, err := Start(o)
		if err == nil {
			a.Close()
			t.Fatal("Start accepted an unregistered binding")
		}
		if !strings.Contains(err.Error(), "2.0") && !strings.Contains(err.Error(), "GRPCMode 99") {
			t.Errorf("error %q does not name the binding", err)
		}
	}
}
