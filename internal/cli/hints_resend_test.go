package cli

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestHintsNameWhatFired (issue 18 item 6): after an ambiguous attempt the hint
// mentions --resend, and it names the bound that fired: the per-attempt
// --attempt-timeout, not the whole run's --timeout.
func TestHintsNameWhatFired(t *testing.T) {
	t.Parallel()
	silent, err := lab.Listen(lab.Silent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = silent.Close() })
	stalls := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithCard(func(a *lab.Agent) any {
		return lab.V1Card("stalls",
			lab.Decl{URL: "http://" + silent.Addr + "/a2a", Binding: lab.JSONRPC, Version: card.V1},
			lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1})
	}))
	relays := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithGRPC(lab.GRPCV1),
		lab.WithExecutor(&lab.Counter{Next: lab.Relay{Err: a2a.ErrVersionNotSupported}}),
		lab.WithCard(func(a *lab.Agent) any {
			return lab.V1Card("relays",
				lab.Decl{URL: a.URL(lab.PathJSONRPC), Binding: lab.JSONRPC, Version: card.V1},
				lab.Decl{URL: a.GRPCAddr, Binding: lab.GRPC, Version: card.V1})
		}))
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"attempt timeout after sending", []string{"send", stalls.BaseURL, "hi", "--attempt-timeout", "300ms", "--timeout", "20s"},
			[]string{"hint: no answer within --attempt-timeout", "--resend"}},
		{"relayed VersionNotSupported", []string{"send", relays.BaseURL, "hi", "--timeout", "20s"},
			[]string{"hint: the message may have run", "--resend"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, "", tt.args...)
			if code != ExitFailed {
				t.Errorf("%v = %d, want %d; stderr:\n%s", tt.args, code, ExitFailed, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("%v stderr:\n%s\nwant %q", tt.args, stderr, w)
				}
			}
			if strings.Contains(stderr, "allow longer with --timeout") {
				t.Errorf("the hint names --timeout, which did not fire:\n%s", stderr)
			}
		})
	}
}
