package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/internal/echo"
	"github.com/a2abind/a2abind/internal/telemetry"
	"github.com/a2abind/a2abind/server"
)

func init() { register(newCmdServe) }

// serveOptions are the options of `a2abind serve`, from its flags; newCmdServe fills
// them, serveRun acts on them.
type serveOptions struct {
	accessLog       bool
	httpAddr        string
	grpcAddr        string
	grpcOnHTTP      bool
	cardFile        string
	publicURL       string
	publicGRPC      string
	tlsCert         string
	tlsKey          string
	v03             bool
	tenant          string
	name            string
	shutdownTimeout time.Duration
	selfCheck       time.Duration
	taskMaxAge      time.Duration
	taskMaxCount    int
	taskMaxBytes    int64
	maxRequestBytes int64
	push            bool
	pushPrivate     bool
	extendedCard    bool
	sign            signingFlags
}

// newCmdServe builds the serve command; runF, when not nil, replaces serveRun (tests
// check the flags without starting a server).
func newCmdServe(g *globals, runF func(*serveOptions) error) *cobra.Command {
	f := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run an echo agent that cannot publish a card naming a binding it does not serve",
		Long: `Serve runs an A2A echo agent on several bindings at once: JSON-RPC and HTTP+JSON on the
HTTP listener (with the card at /.well-known/agent-card.json, /healthz and /readyz), gRPC on
its own listener (--grpc) and/or on the HTTP port (--grpc-on-http), and the v0.3 wire beside
v1.0 (--v03, with a union card; HTTP+JSON 0.3 answers at {url}/v1/message:send and the other
routes v0.3 clients call, with proto-JSON bodies).

The card is derived from what is served, so it cannot disagree with the sockets. A
hand-written card (--card FILE) is published only if every interface it declares is served
at that address, binding and version, and its preferred entry at its primary URL;
otherwise serve refuses to start, says which interface is wrong and what is served there,
and exits 1.

Capabilities are declared as served: streaming always; push notifications only with
--push (a bounded in-memory config store and an HTTP webhook sender that refuse
webhooks at metadata, loopback and private addresses, in any IPv6 form too, when they
are registered and when they are dialled; --push-private allows loopback and private
ones); the extended card only with
--extended-card (the derived card, for authenticated clients). A hand-written card that
claims a capability serve does not provide is refused, exit 1, naming the member; one
it leaves out is refused on the wire, so the card stays true both ways. Behind a proxy or in a container, --public-url and --public-grpc set what the
card advertises. --tenant NAME serves one tenant: every interface declares it, HTTP+JSON is
served under the {url}/NAME/ path prefix, and a request with another tenant or none is
refused with A2A InvalidParams naming NAME.

Before the card is published, every declared interface and capability is probed over
the real sockets; until each answers "served" the card endpoint answers 503 with Retry-After and /readyz is
not ready. On SIGINT or SIGTERM the card and readiness are withdrawn first; requests in
flight are answered, new HTTP requests get 503 with Connection: close, then the listeners
close (new connections are refused) and the bindings drain; whatever is left, idle or
half-open connections included, is closed at --shutdown-timeout.

Tasks are kept in memory, bounded: a finished task (completed, failed, canceled,
rejected) is evicted --task-max-age after its last update, and the oldest finished ones
while more than --task-max-count are kept or all tasks take more than --task-max-bytes.
A task still running or waiting for input is never evicted. Request bodies are bounded by
--max-request-bytes.

Logs are structured (log/slog) on standard error: text by default, JSON with -o json.
Serve runs until it is stopped: --timeout does not apply to it.

Exit status: 0 after a clean stop, 1 when the card is refused or the self-check fails,
2 for a usage error, an unreadable card file or a listener that cannot be opened.`,
		Example: `  # JSON-RPC and HTTP+JSON on :8080, gRPC on :9090
  a2abind serve --http 127.0.0.1:8080 --grpc 127.0.0.1:9090

  # every binding in v1.0 and v0.3, gRPC also on the HTTP port
  a2abind serve --grpc 127.0.0.1:9090 --grpc-on-http --v03

  # behind a TLS-terminating proxy
  a2abind serve --http :8080 --public-url https://agent.example.com --grpc :9090 --public-grpc agent.example.com:443

  # one tenant: every interface declares "tenant": "acme"; HTTP+JSON at /a2a/rest/acme/...
  a2abind serve --grpc 127.0.0.1:9090 --tenant acme

  # push notifications and the extended card, declared because they are served
  a2abind serve --push --extended-card

  # the seed incident's card: refused, exit 1
  a2abind serve --card testdata/cards/seed-v03.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(f)
			}
			return serveRun(cmd.Context(), g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.httpAddr, "http", "127.0.0.1:8080", "HTTP listener address: card, JSON-RPC, HTTP+JSON, /healthz, /readyz")
	fl.StringVar(&f.grpcAddr, "grpc", "", "gRPC listener address (none when empty)")
	fl.BoolVar(&f.accessLog, "access-log", true, "log one line per request (method, status, bytes; no bodies)")
	fl.BoolVar(&f.grpcOnHTTP, "grpc-on-http", false, "also serve gRPC on the HTTP listener (HTTP/2, content type application/grpc)")
	fl.StringVar(&f.cardFile, "card", "", "publish this hand-written card (file, or - for standard input) after verifying it against the served bindings")
	fl.StringVar(&f.publicURL, "public-url", "", "base URL the card advertises for the HTTP listener (behind a proxy or in a container)")
	fl.StringVar(&f.publicGRPC, "public-grpc", "", "host:port the card advertises for the gRPC listener")
	fl.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate (PEM) for HTTP and gRPC")
	fl.StringVar(&f.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fl.BoolVar(&f.v03, "v03", false, "serve the v0.3 wire beside v1.0 and publish a union card")
	fl.StringVar(&f.tenant, "tenant", "", "serve this tenant: every interface declares it and every request must carry it (HTTP+JSON: path prefix)")
	fl.StringVar(&f.name, "name", echo.Name, "agent name in the derived card")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", server.DefaultShutdownTimeout, "bound on draining in-flight requests at shutdown")
	fl.DurationVar(&f.selfCheck, "self-check-timeout", server.DefaultSelfCheckTimeout, "bound on the self-check before the card is published")
	fl.DurationVar(&f.taskMaxAge, "task-max-age", server.DefaultTaskMaxAge, "evict a finished task this long after its last update")
	fl.IntVar(&f.taskMaxCount, "task-max-count", server.DefaultTaskMaxCount, "keep at most this many finished tasks (oldest evicted first)")
	fl.Int64Var(&f.taskMaxBytes, "task-max-bytes", server.DefaultTaskMaxBytes, "evict finished tasks, oldest first, while all stored tasks take more bytes than this")
	fl.Int64Var(&f.maxRequestBytes, "max-request-bytes", server.DefaultMaxRequestBytes, "bound on an HTTP request body and a received gRPC message")
	fl.BoolVar(&f.push, "push", false, "serve push notifications (bounded in-memory config store, HTTP webhook sender)")
	fl.BoolVar(&f.pushPrivate, "push-private", false, "with --push, let webhooks reach loopback and private addresses (refused by default)")
	fl.BoolVar(&f.extendedCard, "extended-card", false, "serve GetExtendedAgentCard with the card derived from what is served")
	f.sign.register(fl, "sign the published card (A2A 1.0 §8.4)", "its path serves the JWKS on the HTTP listener")
	return cmd
}

func serveRun(parent context.Context, g *globals, f *serveOptions) error {
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return fail(ExitUsage, errors.New("--tls-cert and --tls-key go together"))
	}
	if f.taskMaxAge <= 0 || f.taskMaxCount <= 0 || f.taskMaxBytes <= 0 || f.maxRequestBytes <= 0 {
		return fail(ExitUsage, errors.New("--task-max-age, --task-max-count, --task-max-bytes and --max-request-bytes must be positive"))
	}
	logger := serveLogger(g)
	opts := []server.Option{
		server.WithHTTPAddr(f.httpAddr),
		server.WithLogger(logger),
		server.WithAgentInfo(f.name, echo.Description, echo.Version, echo.Skill),
		server.WithShutdownTimeout(f.shutdownTimeout),
		server.WithSelfCheckTimeout(f.selfCheck),
		server.WithTaskLimits(f.taskMaxAge, f.taskMaxCount, f.taskMaxBytes),
		server.WithMaxRequestBytes(f.maxRequestBytes),
	}
	if f.grpcAddr != "" {
		opts = append(opts, server.WithGRPCAddr(f.grpcAddr))
	}
	if f.accessLog {
		opts = append(opts, server.WithAccessLog(logger))
	}
	if f.grpcOnHTTP {
		opts = append(opts, server.WithGRPCOnHTTP())
	}
	if f.v03 {
		opts = append(opts, server.WithV03())
	}
	if f.tenant != "" {
		opts = append(opts, server.WithTenant(f.tenant))
	}
	if f.publicURL != "" {
		opts = append(opts, server.WithPublicURL(f.publicURL))
	}
	if f.publicGRPC != "" {
		opts = append(opts, server.WithPublicGRPCAddr(f.publicGRPC))
	}
	if f.tlsCert != "" {
		opts = append(opts, server.WithTLS(f.tlsCert, f.tlsKey))
	}
	if f.pushPrivate && !f.push {
		return fail(ExitUsage, errors.New("--push-private goes with --push"))
	}
	if f.push {
		var policy *addr.DialPolicy // the default: metadata, link-local, ... refused
		if !f.pushPrivate {
			policy = policy.PublicOnly()
		}
		opts = append(opts, server.WithPushNotifications(server.NewPushConfigStore(policy), server.NewPushSender(policy, pushTimeout)))
	}
	if f.extendedCard {
		opts = append(opts, server.WithDerivedExtendedCard())
	}
	if f.cardFile != "" {
		raw, err := readCardFile(g, f.cardFile)
		if err != nil {
			return fail(ExitUsage, err)
		}
		opts = append(opts, server.WithCardJSON(raw))
	}

	key, err := f.sign.key()
	if err != nil {
		return fail(ExitUsage, err)
	}
	if key != nil {
		opts = append(opts, server.WithCardSigning(key, f.sign.JKU))
	}
	// serve runs until SIGINT/SIGTERM (or the caller's context): --timeout does not apply.
	// The signals are caught before New opens the listeners, so a SIGTERM as soon as the
	// port answers is a clean stop, not the default kill.
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := server.New(echo.Executor{}, opts...)
	if err != nil {
		if errors.Is(err, server.ErrCardMismatch) || errors.Is(err, server.ErrCapabilityNotServed) || errors.Is(err, card.ErrAmbiguous) {
			return fail(ExitFailed, fmt.Errorf("card refused: %w", err))
		}
		return fail(ExitUsage, err)
	}
	if err := srv.Start(ctx); err != nil {
		if ctx.Err() != nil { // stopped by a signal (or the caller) before the card was published
			logger.Info("stopped before the card was published", "err", err)
			_ = srv.Shutdown(context.Background())
			return nil
		}
		if errors.Is(err, server.ErrSelfCheck) {
			return fail(ExitFailed, err)
		}
		return fail(ExitUsage, err)
	}
	select {
	case <-ctx.Done():
		logger.Info("signal received: shutting down")
	case <-srv.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout+time.Second)
	defer cancel()
	shutErr := srv.Shutdown(sctx)
	if err := srv.Wait(); err != nil {
		return fail(ExitFailed, err)
	}
	if shutErr != nil {
		logger.Warn("shutdown did not drain cleanly", "err", shutErr)
	}
	return nil
}

// pushTimeout bounds one webhook delivery of serve --push.
const pushTimeout = 10 * time.Second

// serveLogger logs text on standard error, or JSON with -o json; a line logged inside
// a span carries its trace_id and span_id.
func serveLogger(g *globals) *slog.Logger {
	if g.json() {
		return slog.New(telemetry.LogHandler(slog.NewJSONHandler(g.stderr, nil)))
	}
	return slog.New(telemetry.LogHandler(slog.NewTextHandler(g.stderr, nil)))
}

func readCardFile(g *globals, name string) ([]byte, error) {
	var r io.Reader = g.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--card: %w: %v", card.ErrUnavailable, err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, card.DefaultMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--card %s: %w: %v", name, card.ErrUnavailable, err)
	}
	if len(data) > card.DefaultMaxBytes {
		return nil, fmt.Errorf("--card %s: %w: over the %d-byte limit", name, card.ErrMalformed, card.DefaultMaxBytes)
	}
	return data, nil
}
