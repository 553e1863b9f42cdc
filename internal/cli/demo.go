package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/internal/demo"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

func init() { register(newCmdDemo) }

// demoOptions are the options of `a2abind demo`: only the global ones.
type demoOptions struct {
	g *globals
}

// demoOutput is `a2abind demo -o json`.
type demoOutput struct {
	OK     bool           `json:"ok"`
	Failed []string       `json:"failed,omitempty"`
	Steps  []demoStepJSON `json:"steps"`
	// Probe is the seed agent's probe in the `a2abind probe -o json` shape.
	Probe probeOutput `json:"probe"`
}

type demoStepJSON struct {
	demo.Step
	Attempts [][]sendAttempt `json:"attempts,omitempty"`
}

// newCmdDemo builds the demo command; runF, when not nil, replaces demoRun.
func newCmdDemo(g *globals, runF func(*demoOptions) error) *cobra.Command {
	opts := &demoOptions{g: g}
	return &cobra.Command{
		Use:   "demo",
		Short: "Replay the seed incident and its fix on loopback, in one process",
		Long: `demo plays the incident a2abind answers, on 127.0.0.1 with no set-up:

  1. start the seed agent: JSON-RPC at its card's url, a gRPC port with no A2A service
     registered, and a card whose preferredTransport is GRPC;
  2. run the record's three clients (real a2a-go v2.3.1 clients): one dials url with
     the preferred gRPC, one resolves the gRPC entry of additionalInterfaces, one uses
     JSON-RPC - and show what each gets and the real cause;
  3. probe every declared interface: findings and the client-impact table;
  4. delegate a message: success after one fallback, then none (remembered);
  5. hand the seed's card to the guarded server: it refuses to publish it;
  6. publish the card the guarded server derives from its bindings: the same three
     clients succeed and probe finds every interface served.

Exit 0 when every step behaved as the record says, 1 naming the step that did not.`,
		Example: `  a2abind demo
  a2abind demo -o json | jq '.steps[] | {name, ok}'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return demoRun(cmd.Context(), opts)
		},
	}
}

// demoRun plays the demo and prints its report.
func demoRun(parent context.Context, opts *demoOptions) error {
	g := opts.g
	ctx, cancel := g.context(parent)
	defer cancel()
	rep, err := demo.Run(ctx)
	if err != nil {
		return fail(ExitFailed, fmt.Errorf("demo could not run: %w", err))
	}
	if g.json() {
		if err := g.writeJSON(demoJSON(rep)); err != nil {
			return err
		}
	} else {
		writeDemo(g.stdout, rep)
	}
	if !rep.OK {
		return fail(ExitFailed, fmt.Errorf("demo: step(s) %s did not behave as the seed record says", strings.Join(rep.Failed(), ", ")))
	}
	return nil
}

func demoJSON(rep *demo.Report) demoOutput {
	out := demoOutput{OK: rep.OK, Failed: rep.Failed(), Probe: probeJSON(rep.SeedCard.Location, probe.CardCheck{Results: rep.SeedResults}, rep.SeedReport)}
	for _, s := range rep.Steps {
		js := demoStepJSON{Step: s}
		for _, call := range s.Attempts {
			js.Attempts = append(js.Attempts, sendAttempts(call))
		}
		out.Steps = append(out.Steps, js)
	}
	return out
}

// writeDemo prints the narrated report: one section per step, the probe's full report
// inside the probe step.
func writeDemo(w io.Writer, rep *demo.Report) {
	st := newStyle(w)
	st.block(w, 0, "a2abind demo: the seed incident of 2026-11-10 and its fix, on loopback", st.bold)
	fmt.Fprintln(w)
	for n, s := range rep.Steps {
		mark := "[as recorded]"
		paintMark := st.good
		if !s.OK {
			mark, paintMark = "[NOT as recorded]", st.bad
		}
		st.block(w, 0, fmt.Sprintf("%d. %s  %s", n+1, s.Title, mark), func(l string) string {
			if before, ok := strings.CutSuffix(l, mark); ok {
				return st.bold(before) + paintMark(mark)
			}
			return st.bold(l)
		})
		st.block(w, 3, "expected: "+s.Expected, verdict(st.dim, "expected:"))
		if s.Name == demo.StepProbe {
			fmt.Fprintln(w)
			writeProbe(&globals{stdout: w}, rep.SeedCard.Location, rep.SeedCard, probe.CardCheck{Results: rep.SeedResults}, rep.SeedReport)
		} else {
			for _, note := range s.Notes {
				st.block(w, 3, note, plain)
			}
		}
		if len(s.Calls) > 0 {
			writeCalls(w, st, s.Calls)
		}
		for i, attempts := range s.Attempts {
			fmt.Fprintf(w, "   call %d:\n", i+1)
			writeAttempts(indent{w, "     "}, attempts)
		}
		fmt.Fprintln(w)
	}
	if rep.OK {
		st.block(w, 0, "ok every step behaved as the seed record says: the card lied, probe named the causes, delegate recovered once, the guarded server refused the lie and served the truth", verdict(st.good, "ok"))
		return
	}
	st.block(w, 0, fmt.Sprintf("FAIL step(s) %s did not behave as the record says", strings.Join(rep.Failed(), ", ")), verdict(st.bad, "FAIL"))
}

func writeCalls(w io.Writer, st style, calls []demo.Call) {
	rows := [][]string{{"CLIENT", "CALLS", "RESULT", "REAL CAUSE"}}
	for _, c := range calls {
		result := "delivered"
		if !c.OK {
			result = "FAILED"
		}
		rows = append(rows, []string{c.Client, c.Interface.String(), result, string(c.Outcome)})
	}
	st.table(w, 3, rows, func(row, col int, cell string) string {
		switch {
		case row == 0:
			return st.bold(cell)
		case col == 2 && calls[row-1].OK:
			return st.good(cell)
		case col == 2:
			return st.bad(cell)
		}
		return cell
	}, func(row int) {
		if row == 0 {
			return
		}
		c := calls[row-1]
		if c.Error != "" {
			st.block(w, 7, "a2a-go said: "+firstLine(c.Error), verdict(st.dim, "a2a-go said:"))
		}
		if c.Outcome != wire.Served && c.Outcome != wire.NoInterface {
			st.block(w, 7, "really there: "+really(c.Probe), verdict(st.dim, "really there:"))
		}
	})
}

// indent prefixes every line written through it.
type indent struct {
	w      io.Writer
	prefix string
}

func (i indent) Write(p []byte) (int, error) {
	lines := strings.SplitAfter(string(p), "\n")
	for _, l := range lines {
		if l == "" {
			continue
		}
		if _, err := io.WriteString(i.w, i.prefix+l); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
