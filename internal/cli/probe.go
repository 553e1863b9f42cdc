package cli

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"math"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
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
	Outcome         probe.Outcome         `json:"outcome"`
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
	var (
		headers  []string
		insecure bool
		caFile   string
		sig      signatureFlags
	)
	cmd := &cobra.Command{
		Use:   "probe TARGET",
		Short: "Open every interface a card declares and say what is really served there",
		Long: `Probe loads an AgentCard and opens each declared interface (url, binding, protocol
version) on the wire with a side-effect-free lookup of a random task id: JSON-RPC
GetTask / tasks/get, gRPC GetTask on lf.a2a.v1.A2AService / a2a.v1.A2AService,
HTTP+JSON GET /tasks/{id}. No message is ever sent. Interfaces are probed in parallel.

Each interface gets an outcome: served, auth_required, handler_missing,
version_mismatch, wrong_binding, not_found, refused, tls_mismatch, timeout, unreachable
or malformed, with the evidence (HTTP status, JSON-RPC code, gRPC code and message).
When an interface is not served, the same address is probed with the other bindings and
versions to say what is really there. Then come the findings (preferred-not-served,
interface-not-served and the card's lint findings) and, per known client (a2a-go,
a2a-js, a2a-python, a2a-java, v0.3 clients, a2abind's delegate), the interface it would
pick and what it would get.

TARGET is an agent base URL (the card is fetched from /.well-known/agent-card.json),
the URL of a card document, a card file, or "-" for standard input.

A bare host:port gRPC address is tried in plaintext, then over TLS; certificates are
verified unless --insecure. --timeout bounds the whole command, card fetch included.

Exit status: 0 when no finding is an error, 1 when one is, 2 when the card cannot be
obtained or the command line is wrong.`,
		Example: `  # the seed incident's agent: names both defects and the clients that fail
  a2abind probe http://127.0.0.1:8443

  # with credentials, so auth_required becomes a real verdict
  a2abind probe https://agent.example.com -H "Authorization: Bearer $TOKEN"

  # a self-signed test agent, machine-readable
  a2abind probe https://127.0.0.1:8443 --insecure -o json --timeout 5s`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fail(ExitUsage, fmt.Errorf("probe needs one TARGET (a base URL, a card URL, a file or -), got %d arguments; see a2abind probe --help", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			target := args[0]
			cardOpts := []card.Option{card.WithStdin(g.stdin)}
			var probeOpts []probe.Option
			if g.timeout > 0 {
				cardOpts = append(cardOpts, card.WithTimeout(g.timeout))
				probeOpts = append(probeOpts, probe.WithTimeout(g.timeout))
			}
			for _, h := range headers {
				k, v, ok := strings.Cut(h, ":")
				k, v = strings.TrimSpace(k), strings.TrimSpace(v)
				if !ok || k == "" {
					return fail(ExitUsage, fmt.Errorf("--header %q: want \"Name: value\"", h))
				}
				cardOpts = append(cardOpts, card.WithHeader(k, v))
				probeOpts = append(probeOpts, probe.WithHeader(k, v))
			}
			tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
			if caFile != "" {
				pem, err := os.ReadFile(caFile)
				if err != nil {
					return fail(ExitUsage, fmt.Errorf("--cacert: %w", err))
				}
				pool := x509.NewCertPool()
				if !pool.AppendCertsFromPEM(pem) {
					return fail(ExitUsage, fmt.Errorf("--cacert %s: no PEM certificate in it", caFile))
				}
				tlsCfg.RootCAs = pool
				probeOpts = append(probeOpts, probe.WithRootCAs(pool))
			}
			if insecure {
				tlsCfg.InsecureSkipVerify = true //nolint:gosec // asked for with --insecure
				probeOpts = append(probeOpts, probe.WithInsecureSkipVerify())
			}
			cardTransport := &http.Transport{
				Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsCfg, ForceAttemptHTTP2: true,
			}
			defer cardTransport.CloseIdleConnections()
			cardOpts = append(cardOpts, card.WithHTTPClient(&http.Client{Transport: cardTransport}))

			ctx, cancel := g.context(cmd.Context())
			defer cancel()
			c, err := card.Load(ctx, target, cardOpts...)
			if err != nil && strings.Contains(err.Error(), "x509: ") && !insecure {
				err = fmt.Errorf("%w (trust the agent's CA with --cacert, or pass --insecure)", err)
			}
			if err != nil {
				if g.json() {
					out := probeOutput{Target: target, Interfaces: []probeInterface{}, Findings: []probeFinding{},
						Clients: []probe.ClientImpact{}, Error: err.Error()}
					if werr := g.writeJSON(out); werr != nil {
						return fail(ExitUsage, werr)
					}
				}
				return fail(ExitUsage, err)
			}
			if err := sig.check(ctx, c); err != nil {
				return fail(ExitUsage, err)
			}
			results := probe.Card(ctx, c, probeOpts...)
			rep := probe.Diagnose(c, results)
			if sig.require {
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
	cmd.Flags().StringArrayVarP(&headers, "header", "H", nil, `header for the card fetch and every probe request (gRPC metadata too), "Name: value" (repeatable)`)
	sig.register(cmd.Flags())
	cmd.Flags().BoolVar(&insecure, "insecure", false, "accept any TLS certificate (self-signed, wrong host)")
	cmd.Flags().StringVar(&caFile, "cacert", "", "PEM file of CA certificates to trust instead of the system roots")
	return cmd
}

func probeJSON(target string, results []probe.Result, rep probe.Report) probeOutput {
	out := probeOutput{Target: target, OK: rep.OK(), Interfaces: make([]probeInterface, 0, len(results)),
		Findings: make([]probeFinding, 0, len(rep.Findings)), Clients: rep.Clients}
	for _, r := range results {
		out.Interfaces = append(out.Interfaces, probeInterface{
			URL: r.Interface.URL, Binding: r.Interface.Binding, ProtocolVersion: r.Interface.ProtocolVersion,
			Source: r.Interface.Source, Outcome: r.Outcome, ActualBinding: r.ActualBinding, Detail: r.Detail,
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
	name := ""
	if c.Name != "" {
		name = fmt.Sprintf(" %q", c.Name)
	}
	fmt.Fprintf(w, "%s: %s card%s, %s\n\n", st.bold(target), c.Shape, name, plural(len(c.Interfaces), "interface"))

	rows := [][]string{{"INTERFACE", "DECLARED", "OUTCOME", "REALLY THERE", "LATENCY"}}
	for _, r := range results {
		v := r.Interface.ProtocolVersion
		if v == "" {
			v = "?"
		}
		rows = append(rows, []string{r.Interface.Source, fmt.Sprintf("%s %s at %s", r.Interface.Binding, v, r.Interface.URL),
			string(r.Outcome), really(r), latency(r.Latency)})
	}
	lines := columns(rows, func(row, col int, cell string) string {
		switch {
		case row == 0:
			return st.bold(cell)
		case col == 2 && (results[row-1].Outcome == probe.Served):
			return st.good(cell)
		case col == 2 && results[row-1].Outcome == probe.AuthRequired:
			return st.warn(cell)
		case col == 2:
			return st.bad(cell)
		}
		return cell
	})
	fmt.Fprintln(w, "  "+lines[0])
	for i, r := range results {
		fmt.Fprintln(w, "  "+lines[i+1])
		fmt.Fprintln(w, "      "+st.dim(r.Detail))
	}
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
	clines := columns(crow, func(row, col int, cell string) string {
		switch {
		case row == 0:
			return st.bold(cell)
		case col == 3 && rep.Clients[row-1].OK:
			return st.good(cell)
		case col == 3:
			return st.bad(cell)
		}
		return cell
	})
	fmt.Fprintln(w, "  "+clines[0])
	for i, ci := range rep.Clients {
		fmt.Fprintln(w, "  "+clines[i+1])
		fmt.Fprintln(w, "      "+st.dim(ci.Note))
	}
	fmt.Fprintln(w)

	failing := 0
	for _, ci := range rep.Clients {
		if !ci.OK {
			failing++
		}
	}
	if !rep.OK() {
		fmt.Fprintf(w, "%s %s; %d of %d client profiles fail\n", st.bad("FAIL"), countSeverities(rep.Findings), failing, len(rep.Clients))
		return
	}
	fmt.Fprintf(w, "%s %s; %d of %d client profiles fail\n", st.good("ok"), countSeverities(rep.Findings), failing, len(rep.Clients))
}

// really says what the probe found at an interface's address.
func really(r probe.Result) string {
	switch {
	case r.Outcome == probe.Served:
		return "as declared"
	case r.Outcome == probe.AuthRequired:
		return "needs credentials"
	case r.ActualBinding != "" && r.ActualVersion != "":
		return string(r.ActualBinding) + " " + r.ActualVersion
	case r.ActualBinding != "":
		return string(r.ActualBinding) + ", no A2A service"
	case r.Outcome == probe.WrongBinding:
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
