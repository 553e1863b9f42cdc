package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/a2abind/a2abind/exporter"
)

func init() { register(newCmdExporter) }

// exporterOptions are the options of `a2abind exporter`, from its flags.
type exporterOptions struct {
	g *globals
	// Listen is --listen; Config is --config, "" for the default configuration.
	Listen string
	Config string
}

// exporterShutdown bounds how long in-flight scrapes get at shutdown.
const exporterShutdown = 15 * time.Second

// newCmdExporter builds the exporter command; runF, when not nil, replaces exporterRun.
func newCmdExporter(g *globals, runF func(*exporterOptions) error) *cobra.Command {
	opts := &exporterOptions{g: g}
	cmd := &cobra.Command{
		Use:   "exporter --listen ADDR [--config FILE]",
		Short: "Serve Prometheus metrics of what A2A agents' cards declare and their sockets serve",
		Long: `Exporter is a Prometheus exporter in the multi-target pattern of blackbox_exporter.
Prometheus scrapes GET /probe?target=URL[&module=NAME]: the exporter fetches the
agent's card, probes every declared interface as "a2abind probe" does, within the
scrape timeout (X-Prometheus-Scrape-Timeout-Seconds), and answers with probe_success,
probe_duration_seconds, a2abind_interface_up{url,binding,protocol_version},
a2abind_interface_outcome{url,binding,protocol_version,outcome}, the findings per
severity and per code, the card fetch duration and the earliest TLS certificate
expiry; with &debug=true, the probe's log and series as text. GET /metrics serves the
exporter's own metrics, GET / a page of the recent probes linking to their logs.
GET /sd answers Prometheus HTTP service discovery (http_sd_configs) with the agents
the config's discovery lists: targets files, AI Catalogs and RFC 9727 API catalogs.
Connections to the agents stay open from scrape to scrape.

--config names a YAML file of modules (headers from files or the environment, timeout,
TLS) and an allow-list of targets (allowed_targets), which also bounds card redirects
and interface hosts. A module with headers must say where they may go
(credential_hosts, or allowed_targets), else the config is refused. At most
max_concurrent_probes (default 16) probes run at once; more get a quick 503. Only
http(s) targets are probed; link-local and cloud metadata addresses are never dialled
unless allow_link_local is set. See docs/exporter.md for the config and a
Prometheus scrape config, deploy/prometheus/a2abind-rules.yml for alerting rules and
deploy/grafana/a2abind-dashboard.json for a Grafana dashboard.

The exporter runs until SIGINT or SIGTERM: --timeout does not apply to it.`,
		Example: `  a2abind exporter --listen 127.0.0.1:9115
  curl 'http://127.0.0.1:9115/probe?target=http://127.0.0.1:8443'

  a2abind exporter --listen :9115 --config /etc/a2abind/exporter.yml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Listen == "" {
				return fail(ExitUsage, errors.New("exporter needs --listen ADDR, for example --listen 127.0.0.1:9115"))
			}
			if runF != nil {
				return runF(opts)
			}
			return exporterRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Listen, "listen", "", "address to serve /probe and /metrics on, e.g. 127.0.0.1:9115")
	cmd.Flags().StringVar(&opts.Config, "config", "", "YAML file of modules and allowed targets (see docs/exporter.md)")
	return cmd
}

// exporterRun loads the configuration and serves until the context ends (SIGINT or
// SIGTERM).
func exporterRun(parent context.Context, opts *exporterOptions) error {
	cfg := exporter.DefaultConfig()
	if opts.Config != "" {
		var err error
		if cfg, err = exporter.LoadConfig(opts.Config); err != nil {
			return fail(ExitUsage, err)
		}
	}
	return serveExporter(parent, opts.g, opts.Listen, cfg)
}

// serveExporter serves the exporter on listen with cfg until parent ends.
func serveExporter(parent context.Context, g *globals, listen string, cfg *exporter.Config) error {
	logger := serveLogger(g)
	// Signals are caught before the port opens: a SIGTERM as soon as it answers is a
	// clean stop, not the default kill.
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return fail(ExitUsage, fmt.Errorf("--listen %s: %w", listen, err))
	}
	x := exporter.New(cfg, exporter.WithLogger(logger))
	defer x.Close()
	srv := &http.Server{
		Handler:           x,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	logger.Info("exporter listening", "addr", l.Addr().String())
	select {
	case err := <-served:
		return fail(ExitFailed, err)
	case <-ctx.Done():
		logger.Info("signal received: shutting down")
	}
	sctx, cancel := context.WithTimeout(context.Background(), exporterShutdown)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("shutdown did not drain cleanly", "err", err)
	}
	<-served
	return nil
}
