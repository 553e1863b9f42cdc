package cli

// probe: the command, its options and flags. probeRun (probe_run.go) does the work;
// probe_text.go renders it.

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/probe"
)

func init() { register(newCmdProbe) }

// probeOptions is everything probe needs, from its flags and arguments; newCmdProbe fills
// it, probeRun acts on it.
type probeOptions struct {
	g *globals
	// Target is the TARGET argument; "" with Targets.
	Target string
	// Targets is the --targets FILE, Catalog the --catalog URL; Concurrency how many
	// at once; Deadline bounds the whole run (0: none).
	Targets     string
	Catalog     string
	Concurrency int
	Deadline    time.Duration
	// Summary asks for the short report.
	Summary bool
	// NoCapabilities skips the capability calls: the interface lookups only.
	NoCapabilities bool
	// Conn and Sig are the connection and signature flag groups.
	Conn connFlags
	Sig  signatureFlags
	// TimeoutSet says --timeout was given (else the card fetch keeps its own 10 s bound).
	TimeoutSet bool
}

// newCmdProbe builds the probe command; runF, when not nil, replaces probeRun (tests
// check the flags without an agent).
func newCmdProbe(g *globals, runF func(*probeOptions) error) *cobra.Command {
	opts := &probeOptions{g: g}
	cmd := &cobra.Command{
		Use:   "probe TARGET | --targets FILE | --catalog URL",
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
served/declared, findings), then the reports of the first 20 failing targets (short
ones with --summary); a progress bar is drawn on standard error when it is a terminal.
-o json prints JSON Lines: one single-target report per target as it finishes, its
"target" the line as given, or {"target","ok":false,"error"} when its card cannot be
obtained. --timeout bounds each target (its card fetch and each interface get at most
10 s of it); --deadline bounds the whole run, and targets it leaves are "not probed".
The signature flags apply to every target.

With --catalog URL, every A2A agent a catalog lists is probed as with --targets: an
AI Catalog (entries of type application/a2a-agent-card+json give an agent by url, or
an inline card by data, named URL#identifier; nested application/ai-catalog+json
catalogs are followed 4 deep, each once) or an RFC 9727 API catalog (a linkset); a
URL without a path reads the site's /.well-known/ai-catalog.json, else its
/.well-known/api-catalog. A catalog is fetched like a card (4 MiB, 10 s, 3 redirects on its own origin, the dial
policy). A refused entry (a path, unix:, a link-local or metadata address, control
characters) is a row without a card, with the reason. With --header, the headers go to the catalog's
origin, and an agent on another host is refused unless it is a --credential-host.

Exit status: 0 when no finding is an error, 1 when one is, 2 when the card cannot be
obtained or the command line is wrong. With --targets: 0 when every target is fine, 1
when any target fails or its card cannot be obtained, 2 when the command line or FILE
is wrong, or the catalog cannot be read.`,
		Example: `  # the seed incident's agent: names both defects and the clients that fail
  a2abind probe http://127.0.0.1:8443

  # with credentials, so auth_required becomes a real verdict
  a2abind probe https://agent.example.com -H "Authorization: Bearer $TOKEN"

  # a self-signed test agent, machine-readable
  a2abind probe https://127.0.0.1:8443 --insecure -o json --timeout 5s

  # a fleet: one target per line, JSON Lines out as each target finishes
  a2abind probe --targets agents.txt --concurrency 32 -o json --deadline 30m

  # every agent an organisation's AI Catalog lists
  a2abind probe --catalog https://example.com/.well-known/ai-catalog.json`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case opts.Targets != "" && opts.Catalog != "":
				return fail(ExitUsage, fmt.Errorf("give --targets FILE or --catalog URL, not both"))
			case opts.Targets != "" && len(args) != 0:
				return fail(ExitUsage, fmt.Errorf("probe --targets takes no TARGET argument, got %d; put every target in the file", len(args)))
			case opts.Catalog != "" && len(args) != 0:
				return fail(ExitUsage, fmt.Errorf("probe --catalog takes no TARGET argument, got %d; the catalog lists the targets", len(args)))
			case opts.Targets != "" || opts.Catalog != "":
				return nil
			case len(args) != 1:
				return argsError("probe", "one TARGET (a base URL, a card URL, a file or -), --targets FILE or --catalog URL", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Target = args[0]
			}
			opts.TimeoutSet = cmd.Flags().Changed("timeout")
			if opts.Summary && g.json() {
				return fail(ExitUsage, fmt.Errorf("--summary is a text report; -o json already carries every field"))
			}
			if runF != nil {
				return runF(opts)
			}
			return probeRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	opts.Conn.register(fl, `header for the card fetch and every probe request (gRPC metadata too), "Name: value" (repeatable)`)
	opts.Sig.register(fl)
	fl.StringVar(&opts.Targets, "targets", "", `probe every target listed in FILE, one per line ("-" for standard input, "#" starts a comment line)`)
	fl.StringVar(&opts.Catalog, "catalog", "", "probe every A2A agent an AI Catalog or RFC 9727 API catalog at URL lists")
	fl.IntVar(&opts.Concurrency, "concurrency", probe.DefaultConcurrency, "with --targets or --catalog, how many targets are probed at once")
	fl.DurationVar(&opts.Deadline, "deadline", 0, "with --targets or --catalog, bound on the whole run (--timeout bounds each target); 0 for none")
	fl.BoolVar(&opts.Summary, "summary", false, "short report: one line per interface, the verdict, the top finding and its fix")
	fl.BoolVar(&opts.NoCapabilities, "no-capabilities", false, "look up the interfaces only: no capability calls (the capabilities list stays empty)")
	return cmd
}
