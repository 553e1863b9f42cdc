package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/guard"
)

func init() { register(newCmdGuard) }

// guardOptions are the options of `a2abind guard`, from its flags; newCmdGuard fills
// them, guardRun acts on them.
type guardOptions struct {
	upstream        string
	listen          string
	normalize       bool
	interval        time.Duration
	probeTimeout    time.Duration
	probeVia        []string
	shutdownTimeout time.Duration
	maxProxied      int
	accessLog       bool
	sign            signingFlags
	sig             signatureFlags
}

// newCmdGuard builds the guard command; runF, when not nil, replaces guardRun (tests
// check the flags without starting a guard).
func newCmdGuard(g *globals, runF func(*guardOptions) error) *cobra.Command {
	f := &guardOptions{}
	cmd := &cobra.Command{
		Use:   "guard --upstream URL --listen ADDR",
		Short: "Front an agent a2abind did not build: publish its card only while its sockets serve what it declares",
		Long: `Guard runs in front of an A2A agent written in any language (as a sidecar in the same pod,
or on the same host) and enforces the publish-time invariant for it. It serves the card at
/.well-known/agent-card.json itself (ETag, Last-Modified, Cache-Control), /healthz and
/readyz, and reverse-proxies every other request to --upstream (JSON-RPC, HTTP+JSON, SSE
streams unbuffered, and gRPC over cleartext HTTP/2 for agents serving it on their HTTP port).
No card passes unchecked: the card paths under --upstream's path and the extended card
(HTTP+JSON, gRPC, JSON-RPC) are gated too, and other agents' card paths answer 404.

At start and every --interval it fetches the upstream card and probes every declared
interface on the wire, as 'a2abind probe' does; changes upstream (a gRPC service registered
late, or removed) are followed within one interval.

Strict (the default): while any declared interface, or the preferred entry, or a declared
capability (streaming, pushNotifications, extendedAgentCard: one side-effect-free call
each) is not served, the card answers 503 with Retry-After, /readyz is not ready, and the
log names each interface or capability and its cause. Once consistent, the upstream card
is served unchanged.

--normalize: the card served is the truth: only the served interfaces, a served preferred
entry (v1.0: the first supportedInterfaces entry; v0.3: url + preferredTransport), each
capability flag set to what is served, other fields untouched. A signed card that has to change loses its signatures, and the
A2abind-Signatures-Dropped header and the log say so; with --sign-key the rewritten card is
signed again with the operator's key, as the registry that rewrote it (A2A 1.0 §8.4; --jku
names the key's JWKS, which the guard serves at that URL's path). Nothing served: 503.

--require-signature (with --jwks or --jku-origin for the keys): each round verifies the
upstream card's signatures first and dials nothing unless one verifies and covers every
member used to connect (docs/signatures.md). An unsigned card, or one whose signatures
are all invalid, unverified or partial, is withheld (503, /readyz and the log say why),
with or without --normalize: the normalizer only drops interfaces of a verified card,
and --sign-key never re-signs a card its own signature did not cover.

When the card names public addresses the guard cannot reach, --probe-via PUBLIC=LOCAL
sends the probes of PUBLIC to LOCAL (both origins, or both host:port; repeatable). The
card served keeps the public addresses.

Logs are structured (log/slog) on standard error: text by default, JSON with -o json.
Guard runs until SIGINT or SIGTERM (--timeout does not apply): the card and readiness are
withdrawn first, then proxied requests drain within --shutdown-timeout.

Exit status: 0 after a clean stop, 2 for a usage error or a listener that cannot be opened.`,
		Example: `  # strict sidecar for an agent on :8080
  a2abind guard --upstream http://127.0.0.1:8080 --listen :8443

  # publish only what is served, re-checked every 5 seconds
  a2abind guard --upstream http://127.0.0.1:8080 --listen :8443 --normalize --interval 5s

  # normalize and re-sign what had to change, as the registry that rewrote it
  a2abind guard --upstream http://127.0.0.1:8080 --listen :8443 --normalize \
    --sign-key guard-key.pem --jku https://agent.example.com/.well-known/jwks.json

  # publish only a card signed by a key in signers.json, covering its addresses
  a2abind guard --upstream http://127.0.0.1:8080 --listen :8443 \
    --require-signature --jwks signers.json

  # the card names public addresses: probe them on loopback
  a2abind guard --upstream http://127.0.0.1:8080 --listen :8443 \
    --probe-via https://agent.example.com=http://127.0.0.1:8080 \
    --probe-via agent.example.com:443=127.0.0.1:9090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(f)
			}
			return guardRun(cmd.Context(), g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.upstream, "upstream", "", "the agent's base URL (or card URL), e.g. http://127.0.0.1:8080 (required)")
	fl.StringVar(&f.listen, "listen", "", "address the guard serves on: card, /healthz, /readyz and the proxy, e.g. :8443 (required)")
	fl.BoolVar(&f.normalize, "normalize", false, "publish only what is served instead of withholding a card that claims more")
	fl.DurationVar(&f.interval, "interval", guard.DefaultInterval, "how often the upstream card is fetched and probed again")
	fl.DurationVar(&f.probeTimeout, "probe-timeout", guard.DefaultProbeTimeout, "bound on one interface's probe (at most --interval)")
	fl.StringArrayVar(&f.probeVia, "probe-via", nil, "probe PUBLIC at LOCAL: PUBLIC=LOCAL, both origins or both host:port (repeatable)")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", guard.DefaultShutdownTimeout, "bound on draining proxied requests at shutdown")
	fl.BoolVar(&f.accessLog, "access-log", true, "log one line per request (method, status, bytes; no bodies)")
	fl.IntVar(&f.maxProxied, "max-proxied", guard.DefaultMaxProxied, "requests proxied at once, streams included; then 503")
	f.sig.register(fl)
	f.sign.register(fl, "with --normalize: re-sign the rewritten card", "its path serves the JWKS")
	return cmd
}

func guardRun(parent context.Context, g *globals, f *guardOptions) error {
	switch {
	case f.upstream == "":
		return fail(ExitUsage, errors.New("--upstream is required: the agent's base URL, e.g. --upstream http://127.0.0.1:8080"))
	case f.listen == "":
		return fail(ExitUsage, errors.New("--listen is required: where the guard serves, e.g. --listen :8443"))
	case f.interval <= 0 || f.probeTimeout <= 0:
		return fail(ExitUsage, errors.New("--interval and --probe-timeout must be positive"))
	case f.maxProxied <= 0:
		return fail(ExitUsage, errors.New("--max-proxied must be positive, e.g. --max-proxied 512"))
	}
	logger := serveLogger(g)
	opts := []guard.Option{
		guard.WithListenAddr(f.listen), guard.WithLogger(logger), guard.WithInterval(f.interval),
		guard.WithProbeTimeout(f.probeTimeout), guard.WithShutdownTimeout(f.shutdownTimeout), guard.WithMaxProxied(f.maxProxied),
	}
	if f.normalize {
		opts = append(opts, guard.WithNormalize())
	}
	if f.accessLog {
		opts = append(opts, guard.WithAccessLog(logger))
	}
	for _, s := range f.probeVia {
		m, err := guard.ParseMapping(s)
		if err != nil {
			return fail(ExitUsage, fmt.Errorf("--probe-via: %w", err))
		}
		opts = append(opts, guard.WithProbeVia(m))
	}
	if f.sign.Key != "" && !f.normalize {
		return fail(ExitUsage, errors.New("--sign-key re-signs the card --normalize rewrites: add --normalize (strict mode serves the upstream card unchanged)"))
	}
	key, err := f.sign.key()
	if err != nil {
		return fail(ExitUsage, err)
	}
	if key != nil {
		opts = append(opts, guard.WithCardSigning(key, f.sign.JKU))
	}
	if f.sig.asked() {
		if !f.sig.require {
			return fail(ExitUsage, errors.New("--jwks and --jku-origin need --require-signature (guard withholds a card whose signature does not verify)"))
		}
		vopts, err := f.sig.options(parent) // a JWKS URL is fetched once, before the guard starts
		if err != nil {
			return fail(ExitUsage, err)
		}
		opts = append(opts, guard.WithRequireSignature(vopts...))
	}
	// guard runs until SIGINT/SIGTERM (or the caller's context): --timeout does not apply.
	// The signals are caught before the listener opens, so an early SIGTERM is a clean stop.
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	gd, err := guard.New(f.upstream, opts...)
	if err != nil {
		return fail(ExitUsage, err)
	}
	logger.Info("guard listening", "url", gd.URL(), "upstream", f.upstream, "normalize", f.normalize, "interval", f.interval.String())
	if err := gd.Start(ctx); err != nil {
		_ = gd.Shutdown(context.Background())
		return fail(ExitUsage, err)
	}
	<-ctx.Done()
	logger.Info("signal received: card and readiness withdrawn, shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout+time.Second)
	defer cancel()
	if err := gd.Shutdown(sctx); err != nil {
		logger.Warn("shutdown did not drain cleanly", "err", err)
	}
	logger.Info("stopped")
	return nil
}
