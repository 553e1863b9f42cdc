// Package cli holds the a2abind cobra commands, one file per command, and their
// text and JSON rendering.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/internal/redact"
	"github.com/a2abind/a2abind/internal/telemetry"
)

// Exit codes, a stable contract.
const (
	ExitOK     = 0 // the check or delegation succeeded
	ExitFailed = 1 // the check or delegation failed
	ExitUsage  = 2 // usage error, or the card could not be obtained
)

// Version is the a2abind version, set at build time with -ldflags "-X".
var Version = "0.1.0-dev"

// exitError carries an exit code through cobra. A nil err with a code means the
// command already printed its result.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// fail returns an error that makes Execute exit with code after printing err (if any).
func fail(code int, err error) error { return &exitError{code: code, err: err} }

// globals are the persistent flags every command shares.
type globals struct {
	output  string
	timeout time.Duration
	stdout  io.Writer
	stderr  io.Writer
	stdin   io.Reader
	secrets *redact.Secrets // what the outputs hide (hide)
}

// hide makes the command's outputs hide the header values of h and the secrets of urls
// (redact.New): what it writes on stdout and stderr, its final error, and the spans
// under g.context.
func (g *globals) hide(h http.Header, urls ...string) {
	s := redact.New(h, urls...)
	if s.Empty() {
		return
	}
	g.secrets = redact.Join(g.secrets, s)
	for _, w := range []*io.Writer{&g.stdout, &g.stderr} {
		if rw, ok := (*w).(redact.Writer); ok {
			*w = rw.W
		}
		*w = redact.Writer{W: *w, S: g.secrets}
	}
}

func (g *globals) json() bool { return g.output == "json" }

// context returns a context bounded by --timeout and cancelled on SIGINT/SIGTERM, whose
// spans hide g's secrets.
func (g *globals) context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(redact.NewContext(parent, g.secrets), os.Interrupt, syscall.SIGTERM)
	if g.timeout <= 0 {
		return ctx, stop
	}
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	return ctx, func() { cancel(); stop() }
}

// writeJSON prints v as indented JSON on stdout.
func (g *globals) writeJSON(v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// newRootCmd builds the command tree writing to the given streams.
func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root, _ := newRootGlobals(stdin, stdout, stderr)
	return root
}

// newRootGlobals is newRootCmd and the globals its command writes through.
func newRootGlobals(stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, *globals) {
	g := &globals{stdout: stdout, stderr: stderr, stdin: stdin}
	return newRoot(g, commands), g
}

// newRoot builds the root command with the global flags and the given subcommands.
func newRoot(g *globals, subs []func(*globals) *cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:   "a2abind",
		Short: "Check that an A2A agent's card matches what its sockets really serve",
		Long: `a2abind makes an A2A AgentCard and the sockets behind it agree: lint reads the
card, probe opens every interface it declares and says what is really served there,
send delegates a message with safe fallback, serve and guard publish only a card that
tells the truth, exporter turns all of it into Prometheus metrics, and demo replays
the incident that started it. Every command is listed below.

Shell completion: "a2abind completion bash|zsh|fish|powershell" prints a completion
script; "a2abind completion bash --help" says how to load it for good.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if g.output != "text" && g.output != "json" {
				return fail(ExitUsage, fmt.Errorf("--output must be text or json, not %q", g.output))
			}
			return nil
		},
	}
	root.SetIn(g.stdin)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.PersistentFlags().StringVarP(&g.output, "output", "o", "text", "output format: text or json")
	root.PersistentFlags().DurationVar(&g.timeout, "timeout", 30*time.Second, "bound on the whole command")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return fail(ExitUsage, err) })
	for _, add := range subs {
		root.AddCommand(add(g))
	}
	setHelp(root)
	return root
}

// commands lists the constructors of the subcommands; each command file registers
// itself here from an init function, so adding a command is adding a file.
var commands []func(*globals) *cobra.Command

// register adds a command in gh's shape: newCmd(g, runF) builds it with its options
// struct, and runs xRun(opts) when runF is nil (tests pass a runF that captures the
// options, so flags are tested without live agents).
func register[O any](newCmd func(*globals, func(*O) error) *cobra.Command) {
	commands = append(commands, func(g *globals) *cobra.Command { return newCmd(g, nil) })
}

// Execute runs the CLI with the process's arguments and streams and returns the exit code.
func Execute() int {
	return run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// run is Execute with explicit arguments and streams, for tests.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root, g := newRootGlobals(stdin, stdout, stderr)
	root.SetArgs(args)
	tel := startTelemetry(ctx, stderr)
	code := exitCode(root.ExecuteContext(ctx), g.stderr) // the command's stderr: it hides its secrets
	if err := tel.Shutdown(context.WithoutCancel(ctx)); err != nil {
		writeText(stderr, "a2abind: "+err.Error())
	}
	return code
}

// startTelemetry sets tracing up from the OTEL_* variables (off unless they ask for
// it). A variable it cannot use is reported and the command runs without tracing.
func startTelemetry(ctx context.Context, stderr io.Writer) *telemetry.Provider {
	tel, err := telemetry.Setup(ctx, telemetry.WithServiceVersion(Version), telemetry.WithErrorWriter(stderr))
	if err != nil {
		writeText(stderr, "a2abind: "+err.Error()+"; tracing is off")
	}
	return tel
}

// exitCode is the exit status of a command that returned err, which it prints on stderr.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			writeText(stderr, "a2abind: "+ee.err.Error())
		}
		return ee.code
	}
	// cobra's own errors: unknown command, wrong number of arguments.
	writeText(stderr, "a2abind: "+err.Error())
	return ExitUsage
}
