package cli

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lint"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/signature"
)

func init() { register(newCmdLint) }

// lintOptions are the options of `a2abind lint`, from its flags and argument.
type lintOptions struct {
	g *globals
	// Target is the CARD argument; "" with --rules.
	Target string
	// Rules is --rules: list the rules and exit.
	Rules bool
	// Conn (headers and TLS) and Sig are the connection and signature flag groups.
	Conn connFlags
	Sig  signatureFlags
	// TimeoutSet says --timeout was given (else the card fetch keeps its own 10 s bound).
	TimeoutSet bool
}

// lintOutput is the `lint -o json` document; its field names are a stable contract.
type lintOutput struct {
	OK       bool           `json:"ok"`
	Target   string         `json:"target"`
	Card     *card.Card     `json:"card,omitempty"`
	Findings []card.Finding `json:"findings"`
	// Signatures has the per-signature results when signatures were checked.
	Signatures *signature.Verification `json:"signatures,omitempty"`
	Error      string                  `json:"error,omitempty"`
}

// newCmdLint builds the lint command; runF, when not nil, replaces lintRun.
func newCmdLint(g *globals, runF func(*lintOptions) error) *cobra.Command {
	opts := &lintOptions{g: g}
	cmd := &cobra.Command{
		Use:   "lint CARD",
		Short: "Check an AgentCard document for inconsistencies (no network beyond fetching it)",
		Long: `Lint reads an AgentCard and reports what the document itself gets wrong, before
any socket is touched: binding names, gRPC URLs, protocol versions, duplicate or
conflicting interfaces, a v0.3 preferredTransport that points clients at the
wrong socket, missing REQUIRED fields. It also checks the card's signatures (A2A
1.0 §8.4) when the card is signed or a signature flag is given: with the public
keys of --jwks, or the JWKS a signature's jku names when --jku-origin allows its
https origin (the only other request lint makes). Every finding has a stable
code, a severity and a one-line fix; the rules are listed by --rules and
documented in docs/lint-rules.md.

CARD is a card file, "-" for standard input, an agent base URL (the card is
fetched from /.well-known/agent-card.json under it) or the full URL of a card
document. v1.0, v0.3 and union cards are read alike; a list or object written as
null is read as empty (with a field-null warning). Fetching the card is bounded
to 10 s (--timeout, when given, instead), 1 MiB and 3 redirects.

Member names are matched exactly, as protojson, a2a-js and a2a-python do: a
member named like a field but not exactly ("URL") is not read and is an error,
and so is a member name repeated in one object. --cacert and --insecure set how
the card fetch trusts TLS certificates, as for probe.

Exit status: 0 when there is no error finding (warnings do not fail), 1 when
there is at least one, 2 when the card cannot be obtained or read.`,
		Example: `  # the seed incident's card: prints the inconsistency and exits 1
  a2abind lint testdata/cards/seed-v03.json

  # a consistent v1.0 card: exits 0
  a2abind lint testdata/cards/v1-healthy.json

  # a live agent, with credentials for its card endpoint
  a2abind lint https://agent.example.com -H "Authorization: Bearer $TOKEN"

  # from a pipe, machine-readable
  curl -s https://agent.example.com/.well-known/agent-card.json |
    a2abind lint - -o json

  # check the signatures with the signer's keys; fail unless one verifies
  a2abind lint https://agent.example.com --jwks keys.json --require-signature

  # every rule with its code and severity
  a2abind lint --rules`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.Rules {
				return cobra.NoArgs(cmd, args)
			}
			if len(args) != 1 {
				return argsError("lint", "one CARD (a file, a URL or -)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Target = args[0]
			}
			opts.TimeoutSet = cmd.Flags().Changed("timeout")
			if runF != nil {
				return runF(opts)
			}
			return lintRun(cmd.Context(), opts)
		},
	}
	opts.Conn.registerHeaders(cmd.Flags(), `card fetch header, "Name: value" (repeatable)`)
	opts.Conn.registerTLS(cmd.Flags())
	cmd.Flags().BoolVar(&opts.Rules, "rules", false, "list every lint rule and exit")
	opts.Sig.register(cmd.Flags())
	return cmd
}

// lintRun reads the card, checks its signatures when asked or signed, and prints the
// findings.
func lintRun(parent context.Context, opts *lintOptions) error {
	g := opts.g
	if opts.Rules {
		return printRules(g)
	}
	cc, err := opts.Conn.conn(g, opts.Target)
	if err != nil {
		return fail(ExitUsage, err)
	}
	cardOpts := []card.Option{card.WithConn(cc)}
	if cc.RootCAs == nil && !cc.Insecure {
		// Without TLS flags lint fetches the card the user named as it always has: the
		// default client, no dial policy.
		cardOpts = append(cardOpts, card.WithHTTPClient(http.DefaultClient))
	}
	ctx, cancel := g.context(parent)
	defer cancel()
	target := opts.Target
	c, err := loadCard(ctx, g, cardLoad{
		hint:       hintContext{command: "lint", target: target, headers: len(opts.Conn.Headers) > 0, tlsFlags: true},
		timeoutSet: opts.TimeoutSet,
		opts:       cardOpts,
		failed:     func(err error) any { return lintOutput{Target: target, Findings: []card.Finding{}, Error: err.Error()} },
		ambiguous:  func(x card.Finding) error { return lintFailed(g, target, x) }, // a repeated member name: readers disagree
	})
	if err != nil {
		return err
	}
	if err := opts.Sig.check(ctx, c); err != nil {
		return fail(ExitUsage, err)
	}
	findings := opts.Sig.findings(c)
	ok := !card.HasErrors(findings)
	if g.json() {
		if findings == nil {
			findings = []card.Finding{}
		}
		if err := g.writeJSON(lintOutput{OK: ok, Target: target, Card: c, Findings: findings, Signatures: signature.Of(c)}); err != nil {
			return fail(ExitUsage, err)
		}
	} else {
		writeLint(g, target, c, findings)
	}
	if !ok {
		return fail(ExitFailed, nil)
	}
	return nil
}

// lintFailed reports a document the card reader refuses as ambiguous (a repeated member
// name) as its finding, exit 1: the card was obtained and is wrong, like any error finding.
func lintFailed(g *globals, target string, x card.Finding) error {
	findings := []card.Finding{x}
	if g.json() {
		if err := g.writeJSON(lintOutput{Target: target, Findings: findings, Error: x.Message}); err != nil {
			return fail(ExitUsage, err)
		}
		return fail(ExitFailed, nil)
	}
	st := newStyle(g.stdout)
	st.block(g.stdout, 0, target+": a card no two readers read alike", st.bold)
	fmt.Fprintln(g.stdout)
	writeFindings(g.stdout, st, findings)
	fmt.Fprintln(g.stdout)
	st.block(g.stdout, 0, "FAIL: "+countSeverities(findings)+": clients read this card differently", verdict(st.bad, "FAIL"))
	return fail(ExitFailed, nil)
}

// writeLint prints the human report: what was read, the interfaces, the findings and a verdict.
func writeLint(g *globals, target string, c *card.Card, findings []card.Finding) {
	w := g.stdout
	st := newStyle(w)
	st.block(w, 0, cardTitle(target, c), st.bold)
	if len(c.Interfaces) > 0 {
		rows := [][]string{}
		for _, i := range c.Interfaces {
			mark := ""
			if i.Preferred {
				mark = "preferred"
			}
			v := i.ProtocolVersion
			if v == "" {
				v = "?"
			}
			rows = append(rows, []string{mark, string(i.Binding), v, i.URL, i.Source.String()})
		}
		st.table(w, 2, rows, func(_, col int, cell string) string {
			if col == 4 {
				return st.dim(cell)
			}
			return cell
		}, nil)
	}
	fmt.Fprintln(w)
	writeFindings(w, st, findings)
	if len(findings) > 0 {
		fmt.Fprintln(w)
	}
	if card.HasErrors(findings) {
		st.block(w, 0, "FAIL: "+countSeverities(findings)+": "+failingVerdict(probe.Predict(c)), verdict(st.bad, "FAIL"))
		return
	}
	st.block(w, 0, "ok: "+countSeverities(findings), verdict(st.good, "ok"))
}

// failingVerdict says who fails on a card with error findings, from the client-impact
// model of the card as written (probe.Predict): "clients that trust this card as written
// will fail" only when a modelled client does, and names them.
func failingVerdict(impact []probe.ClientImpact) string {
	var failing []string
	for _, ci := range impact {
		if !ci.OK {
			failing = append(failing, ci.Profile)
		}
	}
	if len(failing) == 0 {
		return "no modelled client fails on this card as written, but it breaks a rule whose findings are errors"
	}
	return "clients that trust this card as written will fail (" + strings.Join(failing, ", ") + ")"
}

// cardTitle is the first line of a lint or probe report: where the card came from, its
// shape, name and number of interfaces.
func cardTitle(target string, c *card.Card) string {
	name := ""
	if c.Name != "" {
		name = " \"" + c.Name + "\""
	}
	return fmt.Sprintf("%s: %s card%s, %s", target, c.Shape, name, counted(len(c.Interfaces), "interface"))
}

func printRules(g *globals) error {
	rules := lint.Rules()
	if g.json() {
		type jsonRule struct {
			Code     string        `json:"code"`
			Severity card.Severity `json:"severity"`
			Summary  string        `json:"summary"`
			Fix      string        `json:"fix"`
		}
		out := make([]jsonRule, len(rules))
		for i, r := range rules {
			out[i] = jsonRule{r.Code, r.Severity, r.Summary, r.Fix}
		}
		return g.writeJSON(out)
	}
	st := newStyle(g.stdout)
	rows := make([][]string, len(rules))
	for i, r := range rules {
		rows[i] = []string{r.Code, string(r.Severity), r.Summary}
	}
	st.table(g.stdout, 0, rows, func(row, col int, cell string) string {
		if col == 1 {
			return strings.TrimRight(st.severity(rules[row].Severity), " ")
		}
		return cell
	}, nil)
	return nil
}
