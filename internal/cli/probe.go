package cli

import (
	"fmt"
	"math"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

func init() { commands = append(commands, newProbeCmd) }

// probeOutput is the `probe -o json` document; its field names are a stable contract.
type probeOutput struct {
	Target     string               `json:"target"`
	OK         bool                 `json:"ok"`
	Interfaces []probeInterface     `json:"interfaces"`
	Findings   []probeFinding       `json:"findings"`
	Clients    []probe.ClientImpact `json:"clients"`
	Error      string               `json:"error,omitempty"`
}

type probeInterface struct {
	URL             string                `json:"url"`
	Binding         a2a.TransportProtocol `json:"binding"`
	ProtocolVersion string                `json:"protocolVersion"`
	Source          string                `json:"source"`
	Outcome         wire.Outcome          `json:"outcome"`
	ActualBinding   a2a.TransportProtocol `json:"actualBinding,omitempty"`
	Detail          string                `json:"detail"`
	LatencyMs       float64               `json:"latencyMs"`
}

type probeFinding struct {
	Code     string        `json:"code"`
	Severity card.Severity `json:"severity"`
	Message  string        `json:"message"`
}

func newProbeCmd(g *globals) *cobra.Command {
	var f probeFlags
	cmd := &cobra.Command{
		Use:   "probe TARGET | --targets FILE",
		Short: "Open every interface a card declares and say what is really served there",
		Long: `Probe loads an AgentCard and opens each declared interface (url, binding, protocol
version) on the wire with a side-effect-free lookup of a random task id: JSON-RPC
GetTask / tasks/get, gRPC GetTask on lf.a2a.v1.A2AService / a2a.v1.A2AService,
HTTP+JSON GET /tasks/{id}. No message is ever sent. Interfaces are probed in parallel.

Each interface gets an outcome: served, auth_required, handler_missing,
version_mismatch, wrong_binding, not_found, refused, tls_mismatch, timeout, unreachable,
malformed or blocked, with the evidence (HTTP status, JSON-RPC code, gRPC code and message).
When an interface is not served, the same address is probed with the other bindings and
versions to say what is really there. Then come the findings (preferred-not-served,
interface-not-served and the card's lint findings) and, per known client (a2a-go,
a2a-js, a2a-python, a2a-java, v0.3 clients, a2abind's delegate), the interface it would
pick and what it would get.

TARGET is an agent base URL (the card is fetched from /.well-known/agent-card.json),
the URL of a card document, a card file, or "-" for standard input.

A bare host:port gRPC address is tried in plaintext, then over TLS; certificates are
verified unless --insecure. --timeout bounds the whole command; the card fetch is
bounded to 10 s unless --timeout is given. A card whose lists are null (as a2a-go
v2.3.1's "a2a serve --echo" publishes) is read leniently: a field-null warning.

Headers given with --header go to the card fetch and to the interfaces on the card's
origin (the scheme, host and port of TARGET as given, before any redirect), and to the
hosts named with --credential-host; other interfaces are probed without them (the
detail says so). A redirect to another origin is followed without them.

` + addressHelp + `

With --targets FILE, every target listed in FILE (one http:// or https:// URL per
line, "-" for standard input, blank lines and lines starting with "#" skipped) is
probed, --concurrency at once, over connections reused from target to target. The text
output is a summary row per target as it finishes (verdict, interfaces
served/declared, findings), then the reports of the first 20 failing targets; a
progress bar is drawn on standard error when it is a terminal. -o json prints JSON
Lines: one single-target report per target as it finishes, its "target" the line as
given, or {"target","ok":false,"error"} when its card cannot be obtained. --timeout
bounds each target (its card fetch and each interface get at most 10 s of it);
--deadline bounds the whole run, and targets it leaves are "not probed". The
signature flags apply to every target.

Exit status: 0 when no finding is an error, 1 when one is, 2 when the card cannot be
obtained or the command line is wrong. With --targets: 0 when every target is fine, 1
when any target fails or its card cannot be obtained, 2 when the command line or FILE
is wrong.`,
		Example: `  # the seed incident's agent: names both defects and the clients that fail
  a2abind probe http://127.0.0.1:8443

  # with credentials, so auth_required becomes a real verdict
  a2abind probe https://agent.example.com -H "Authorization: Bearer $TOKEN"

  # a self-signed test agent, machine-readable
  a2abind probe https://127.0.0.1:8443 --insecure -o json --timeout 5s

  # a fleet: one target per line, JSON Lines out as each target finishes
  a2abind probe --targets agents.txt --concurrency 32 -o json --deadline 30m`,
		Args: func(_ *cobra.Command, args []string) error {
			if f.targets != "" {
				if len(args) != 0 {
					return fail(ExitUsage, fmt.Errorf("probe --targets takes no TARGET argument, got %d; put every target in the file", len(args)))
				}
				return nil
			}
			if len(args) != 1 {
				return argsError("probe", "one TARGET (a base URL, a card URL, a file or -) or --targets FILE", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cardOpts, probeOpts, err := f.options()
			if err != nil {
				return err
			}
			if f.targets != "" {
				return runTargets(cmd, g, f, cardOpts, probeOpts)
			}
			target := args[0]
			cardOpts = append(cardOpts, card.WithStdin(g.stdin))
			if g.timeout > 0 {
				if cmd.Flags().Changed("timeout") {
					cardOpts = append(cardOpts, card.WithTimeout(g.timeout)) // else the card fetch's own 10 s bound
				}
				probeOpts = append(probeOpts, probe.WithTimeout(g.timeout))
			}
			e := probe.NewEngine()
			defer e.Close()
			cardOpts = append(cardOpts, card.WithHTTPClient(e.HTTPClient(probeOpts...)))

			ctx, cancel := g.context(cmd.Context())
			defer cancel()
			c, err := card.Load(ctx, target, cardOpts...)
			if err != nil {
				if g.json() {
					out := probeOutput{Target: target, Interfaces: []probeInterface{}, Findings: []probeFinding{},
						Clients: []probe.ClientImpact{}, Error: err.Error()}
					if werr := g.writeJSON(out); werr != nil {
						return fail(ExitUsage, werr)
					}
				}
				return fail(ExitUsage, withHint(err, hintContext{command: "probe", target: target, headers: len(f.conn.Headers) > 0, tlsFlags: true}))
			}
			if err := f.sig.check(ctx, c); err != nil {
				return fail(ExitUsage, err)
			}
			var results []probe.Result
			if f.sig.require && !c.Verification().Verified() {
				// no signature vouches for where the card points: dial nothing
				fmt.Fprintln(g.stderr, "note: no interface probed: no card signature verifies and covers the interfaces (--require-signature)")
			} else {
				results = e.Card(ctx, c, probeOpts...)
				if n := probe.Skipped(c, probeOpts...); n > 0 {
					fmt.Fprintf(g.stderr, "note: probed the first %d of %d interfaces; %d not probed (raise --max-interfaces)\n", len(results), len(c.Interfaces), n)
				}
			}
			rep := probe.Diagnose(c, results)
			if f.sig.require {
				rep.Findings = card.RequireSignature(c, rep.Findings)
			}
			if g.json() {
				if err := g.writeJSON(probeJSON(target, results, rep)); err != nil {
					return fail(ExitUsage, err)
				}
			} else {
				writeProbe(g, target, c, results, rep)
			}
			if !rep.OK() {
				return fail(ExitFailed, nil)
			}
			return nil
		},
	}
	f.conn.register(cmd.Flags(), `header for the card fetch and every probe request (gRPC metadata too), "Name: value" (repeatable)`)
	f.sig.register(cmd.Flags())
	cmd.Flags().StringVar(&f.targets, "targets", "", `probe every target listed in FILE, one per line ("-" for standard input, "#" starts a comment line)`)
	cmd.Flags().IntVar(&f.concurrency, "concurrency", probe.DefaultConcurrency, "with --targets, how many targets are probed at once")
	cmd.Flags().DurationVar(&f.deadline, "deadline", 0, "with --targets, bound on the whole run (--timeout bounds each target); 0 for none")
	return cmd
}

// probeFlags are the probe command's own flags.
type probeFlags struct {
	conn        connFlags
	sig         signatureFlags
	targets     string
	concurrency int
	deadline    time.Duration
}

// options turns the connection flags into card and probe options (one card.Conn).
func (f probeFlags) options() ([]card.Option, []probe.Option, error) {
	conn, err := f.conn.conn()
	if err != nil {
		return nil, nil, fail(ExitUsage, err)
	}
	return []card.Option{card.WithConn(conn)}, []probe.Option{probe.WithConn(conn)}, nil
}

func probeJSON(target string, results []probe.Result, rep probe.Report) probeOutput {
	out := probeOutput{Target: target, OK: rep.OK(), Interfaces: make([]probeInterface, 0, len(results)),
		Findings: make([]probeFinding, 0, len(rep.Findings)), Clients: rep.Clients}
	for _, r := range results {
		out.Interfaces = append(out.Interfaces, probeInterface{
			URL: r.Interface.URL, Binding: r.Interface.Binding, ProtocolVersion: r.Interface.ProtocolVersion,
			Source: r.Interface.Source.String(), Outcome: r.Outcome, ActualBinding: r.ActualBinding, Detail: r.Detail,
			LatencyMs: millis(r.Latency),
		})
	}
	for _, f := range rep.Findings {
		out.Findings = append(out.Findings, probeFinding{Code: f.Code, Severity: f.Severity, Message: f.Message})
	}
	if out.Clients == nil {
		out.Clients = []probe.ClientImpact{}
	}
	return out
}

func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Millisecond)*100) / 100
}

// writeProbe prints the human report: the interface table (with each interface's
// evidence under it), the findings, the client-impact table and a verdict.
func writeProbe(g *globals, target string, c *card.Card, results []probe.Result, rep probe.Report) {
	w := g.stdout
	st := newStyle(w)
	st.block(w, 0, cardTitle(target, c), st.bold)
	fmt.Fprintln(w)

	rows := [][]string{{"INTERFACE", "DECLARED", "OUTCOME", "REALLY THERE", "LATENCY"}}
	for _, r := range results {
		v := r.Interface.ProtocolVersion
		if v == "" {
			v = "?"
		}
		rows = append(rows, []string{r.Interface.Source.String(), fmt.Sprintf("%s %s at %s", r.Interface.Binding, v, r.Interface.URL),
			string(r.Outcome), really(r), latency(r.Latency)})
	}
	st.table(w, 2, rows, func(row, col int, cell string) string {
		switch {
		case row == 0:
			return st.bold(cell)
		case col == 2 && (results[row-1].Outcome == wire.Served):
			return st.good(cell)
		case col == 2 && results[row-1].Outcome == wire.AuthRequired:
			return st.warn(cell)
		case col == 2:
			return st.bad(cell)
		}
		return cell
	}, func(row int) {
		if row > 0 {
			st.block(w, 6, results[row-1].Detail, st.dim)
		}
	})
	fmt.Fprintln(w)

	if len(rep.Findings) > 0 {
		fmt.Fprintln(w, st.bold("Findings"))
		writeFindings(w, st, rep.Findings)
		fmt.Fprintln(w)
	}

	fmt.Fprintln(w, st.bold("Client impact"))
	crow := [][]string{{"CLIENT", "PICKS", "GETS", "RESULT"}}
	for _, ci := range rep.Clients {
		picks := "-"
		if ci.Interface != nil {
			picks = ci.Interface.String()
		}
		verdict := "ok"
		if !ci.OK {
			verdict = "FAILS"
		}
		crow = append(crow, []string{ci.Profile, picks, string(ci.Outcome), verdict})
	}
	st.table(w, 2, crow, func(row, col int, cell string) string {
		switch {
		case row == 0:
			return st.bold(cell)
		case col == 3 && rep.Clients[row-1].OK:
			return st.good(cell)
		case col == 3:
			return st.bad(cell)
		}
		return cell
	}, func(row int) {
		if row > 0 {
			st.block(w, 6, rep.Clients[row-1].Note, st.dim)
		}
	})
	fmt.Fprintln(w)

	failing := 0
	for _, ci := range rep.Clients {
		if !ci.OK {
			failing++
		}
	}
	summary := fmt.Sprintf(" %s; %d of %d client profiles fail", countSeverities(rep.Findings), failing, len(rep.Clients))
	if !rep.OK() {
		st.block(w, 0, "FAIL"+summary, verdict(st.bad, "FAIL"))
		return
	}
	st.block(w, 0, "ok"+summary, verdict(st.good, "ok"))
}

// really says what the probe found at an interface's address.
func really(r probe.Result) string {
	switch {
	case r.Outcome == wire.Served:
		return "as declared"
	case r.Outcome == wire.AuthRequired:
		return "needs credentials"
	case r.ActualBinding != "" && r.ActualVersion != "":
		return string(r.ActualBinding) + " " + r.ActualVersion
	case r.ActualBinding != "":
		return string(r.ActualBinding) + ", no A2A service"
	case r.Outcome == wire.WrongBinding:
		return "another protocol"
	}
	return "-"
}

func latency(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	}
	return d.Round(100 * time.Microsecond).String()
}
