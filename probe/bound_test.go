package probe_test

import (
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/probe"
)

// Hole 4 for probe: a ~1 MiB card declaring 13,500 gRPC interfaces is probed DefaultMaxInterfaces
// at a time at most; Skipped says how many were left out.
func TestCardProbesAtMostTheBound(t *testing.T) {
	closed, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(closed)
	decls := make([]lab.Decl, 0, 13500)
	for i := range 13500 {
		u := fmt.Sprintf("127.0.0.1:%d", 1+i) // never probed: over the bound
		if i < 64 {
			u = fmt.Sprintf("127.0.0.%d:%s", 1+i, port)
		}
		decls = append(decls, lab.Decl{URL: u, Binding: lab.GRPC, Version: card.V1})
	}
	b, err := json.Marshal(lab.V1Card("huge", decls...))
	if err != nil {
		t.Fatal(err)
	}
	c, err := card.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	results := probe.Card(t.Context(), c, probe.WithTimeout(5*time.Second))
	if len(results) != addr.DefaultMaxInterfaces {
		t.Errorf("Card() = %d results, want the bound %d", len(results), addr.DefaultMaxInterfaces)
	}
	if n := probe.Skipped(c); n != len(c.Interfaces)-addr.DefaultMaxInterfaces {
		t.Errorf("Skipped() = %d, want %d", n, len(c.Interfaces)-addr.DefaultMaxInterfaces)
	}
	if got := probe.Card(t.Context(), c, probe.WithTimeout(5*time.Second), probe.WithConn(addr.Conn{MaxInterfaces: 40})); len(got) != 40 {
		t.Errorf("MaxInterfaces 40: %d results", len(got))
	}
}
