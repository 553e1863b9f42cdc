package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// ErrSelfCheck is matched (errors.Is) by the *SelfCheckError Start returns when a
// declared interface did not answer `served` over the real sockets in time.
var ErrSelfCheck = errors.New("self-check failed")

// SelfCheckError is Start's refusal to publish the card: the last self-check round
// found declared interfaces, or declared capabilities, that are not served.
type SelfCheckError struct {
	// Results are the probe results of the last round, in card order.
	Results []probe.Result
	// Capabilities are the last round's capability results (probe.Check).
	Capabilities []probe.CapabilityResult
}

// Error lists the interfaces and the declared capabilities that are not served and
// what the probe found.
func (e *SelfCheckError) Error() string {
	var bad []string
	for _, r := range e.Results {
		if r.Outcome != wire.Served {
			bad = append(bad, fmt.Sprintf("%s (%s): %s: %s", r.Interface, r.Interface.Source, r.Outcome, r.Detail))
		}
	}
	for _, cr := range e.Capabilities {
		if cr.Declared() && cr.Verdict != probe.CapabilityServed {
			bad = append(bad, capabilityText(cr))
		}
	}
	return "self-check over the real sockets failed, card not published: " + strings.Join(bad, "; ")
}

// Is makes errors.Is(err, ErrSelfCheck) true.
func (e *SelfCheckError) Is(target error) bool { return target == ErrSelfCheck }

// Start serves every binding, runs the self-check over the real sockets and publishes
// the card once every declared interface answers `served`. Until then the card
// endpoint answers 503 with Retry-After and /readyz is not ready. If the self-check does
// not pass within the self-check timeout (or ctx ends), Start shuts the server down and
// returns a *SelfCheckError (errors.Is ErrSelfCheck). ctx bounds the self-check only:
// once Start returned nil the server runs until Shutdown.
func (srv *Server) Start(ctx context.Context) error {
	if !srv.started.CompareAndSwap(false, true) {
		return errorf("Start called twice")
	}
	if srv.stopping.Load() {
		return errorf("Start after Shutdown")
	}
	if !srv.o.mounted {
		srv.serve()
	}
	for _, s := range srv.served {
		srv.log.Info("serving", "binding", string(s.binding), "version", s.version, "url", s.public, "listen", s.local)
	}
	if srv.httpEP.anyHost || (srv.hasGRPC && srv.grpcEP.anyHost) {
		srv.log.Warn("a listener is bound to all interfaces and no public address is set: the card advertises loopback; set a public URL for remote clients")
	}
	srv.log.Info("card pending self-check", "card", srv.CardURL(), "interfaces", len(srv.card.Interfaces))

	if err := srv.selfCheck(ctx); err != nil {
		if srv.stopping.Load() {
			return errorf("shut down during start; card never published")
		}
		srv.log.Error("self-check failed; card not published", "err", err)
		sctx, cancel := context.WithTimeout(context.Background(), srv.o.shutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return err
	}
	if srv.stopping.Load() {
		return errorf("shut down during start")
	}
	srv.ready.Store(true)
	srv.event("ready")
	srv.log.Info("ready: card published", "card", srv.CardURL(), "etag", srv.etag)
	return nil
}

// serve serves the server's own listeners: HTTP first (the card answers 503 until the
// self-check passed), then gRPC once its services are registered.
func (srv *Server) serve() {
	srv.goServe("http", func() error {
		if srv.tlsCfg != nil {
			return srv.httpSrv.ServeTLS(srv.httpLis, "", "")
		}
		return srv.httpSrv.Serve(srv.httpLis)
	})
	if h := srv.o.hooks.beforeGRPCRegister; h != nil {
		h()
	}
	if srv.grpcSrv == nil {
		return
	}
	if !srv.o.hooks.skipGRPCRegister {
		srv.RegisterGRPC(srv.grpcSrv)
	}
	srv.grpcReady.Store(true)
	srv.event("grpc-registered")
	if srv.grpcLis != nil {
		srv.goServe("grpc", func() error { return srv.grpcSrv.Serve(srv.grpcLis) })
	}
}

func (srv *Server) goServe(name string, serve func() error) {
	srv.wg.Add(1)
	go func() {
		defer srv.wg.Done()
		if err := serve(); err != nil && !errors.Is(err, http.ErrServerClosed) && !srv.stopping.Load() {
			srv.log.Error("listener failed", "listener", name, "err", err)
			srv.serveErrMu.Lock()
			if srv.serveErr == nil {
				srv.serveErr = fmt.Errorf("server: %s listener: %w", name, err)
			}
			srv.serveErrMu.Unlock()
			go func() { _ = srv.Shutdown(context.Background()) }()
		}
	}()
}

// selfCheck probes the published card's interfaces at their local addresses until every
// one is served, backing off between rounds, bounded by the self-check timeout.
func (srv *Server) selfCheck(ctx context.Context) (err error) {
	ctx, span := srv.startSelfCheckSpan(ctx)
	rounds := 0
	defer func() { endSelfCheckSpan(span, rounds, err) }()
	ctx, cancel := context.WithTimeout(ctx, srv.o.selfCheck)
	defer cancel()
	go func() {
		select {
		case <-srv.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	// The self-check proves the bindings over TLS on the local socket (Insecure): whether
	// the certificate is trusted under the public name is the deployment's concern.
	conn := addr.Conn{Header: srv.o.selfCheckHeader, Insecure: srv.tlsCfg != nil}
	opts := []probe.Option{probe.WithConn(conn), probe.WithTimeout(min(srv.o.selfCheck, 5*time.Second)), probe.WithProbeVia(srv.localOf)}
	if len(srv.o.selfCheckHeader) > 0 {
		// Every interface of the check card is one of this server's own listeners: the
		// credential goes to each of them (the HTTP and the gRPC port are two origins).
		opts = append(opts, probe.WithCredentialPolicy(addr.NewCredentialPolicy(addr.Origin{}, srv.checkHosts()...)))
	}
	backoff := 20 * time.Millisecond
	var prev []probe.Result
	for round := 1; ; round++ {
		rounds = round
		ch := probe.Check(ctx, srv.card, opts...)
		results := ch.Results
		if ctx.Err() != nil && prev != nil {
			// The deadline cut this round short: keep what the previous, complete round
			// found for the interfaces that only timed out now.
			for i := range results {
				if results[i].Outcome == wire.Timeout {
					results[i] = prev[i]
				}
			}
		}
		prev = results
		ok := len(results) > 0
		for _, r := range results {
			level := slog.LevelInfo
			if r.Outcome != wire.Served {
				ok = false
				level = slog.LevelWarn
			}
			srv.log.Log(ctx, level, "self-check", "round", round, "binding", string(r.Interface.Binding),
				"version", r.Interface.ProtocolVersion, "url", r.Interface.URL, "outcome", string(r.Outcome),
				"latency", r.Latency, "detail", r.Detail)
		}
		for _, cr := range ch.Capabilities {
			if !cr.Declared() {
				continue
			}
			level := slog.LevelInfo
			if cr.Verdict != probe.CapabilityServed {
				ok = false
				level = slog.LevelWarn
			}
			srv.log.Log(ctx, level, "self-check", "round", round, "capability", string(cr.Name),
				"member", cr.Claim.Source, "verdict", string(cr.Verdict), "calls", len(cr.Calls))
		}
		if ok {
			return nil
		}
		if ctx.Err() != nil {
			return &SelfCheckError{Results: results, Capabilities: ch.Capabilities}
		}
		select {
		case <-ctx.Done():
			return &SelfCheckError{Results: results, Capabilities: ch.Capabilities}
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// Shutdown withdraws the card and readiness first (both answer 503 from then on), then
// lets the bindings drain in-flight requests and closes them, bounded by ctx and the
// shutdown timeout; connections still open at the deadline are closed. It is safe to call
// more than once and before Start; every call returns the first call's result.
func (srv *Server) Shutdown(ctx context.Context) error {
	srv.shutOnce.Do(func() {
		srv.stopping.Store(true)
		srv.ready.Store(false)
		srv.stopOnce.Do(func() { close(srv.stop) })
		srv.event("withdrawn")
		srv.log.Info("shutting down: card and readiness withdrawn")
		if h := srv.o.hooks.afterWithdraw; h != nil {
			h()
		}
		srv.shutErr = srv.drain(ctx)
		close(srv.done)
	})
	<-srv.done
	return srv.shutErr
}

func (srv *Server) drain(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, srv.o.shutdownTimeout)
	defer cancel()
	if !srv.started.Load() || srv.o.mounted {
		srv.closeListeners()
		srv.stopExecutions()
		return nil
	}
	var errs []error
	var wg sync.WaitGroup
	if srv.grpcSrv != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv.drainGRPC(ctx)
			srv.event("grpc-closed")
		}()
	}
	srv.quiesceHTTP(ctx)
	if err := srv.httpSrv.Shutdown(ctx); err != nil {
		srv.log.Warn("HTTP drain timed out; connections closed", "err", err)
		errs = append(errs, fmt.Errorf("server: HTTP drain: %w", err))
		_ = srv.httpSrv.Close()
	}
	srv.event("http-closed")
	wg.Wait()
	srv.wg.Wait()
	srv.stopExecutions()
	srv.closeListeners()
	srv.log.Info("stopped")
	return errors.Join(errs...)
}

// quiesceHTTP is the HTTP listener's first step of Shutdown; it ends by closing the
// listener. Requests already being handled are answered, with Connection: close
// (drainingWriter). A request that arrives from now on, on a new connection or a
// kept-alive one, is refused with 503, Retry-After and Connection: close
// (refusedWhileDraining), its answer held until the listener is closed: its client,
// reconnecting at once, then meets a closed port (connection refused, nothing written)
// instead of a listener that might close with its new connection in the accept queue
// (reset after the request was written). The listener closes once no request is in
// flight, no connection waits for its first request or was idle less than
// httpIdleGrace ago (a busy client's next request is coming), nothing waits in the
// accept queue (Linux: TCP_INFO; elsewhere only the quiet period tells), and nothing
// arrived or closed for httpQuietPeriod; or when ctx ends or httpQuiesceMax or half the
// shutdown timeout passed. Connections idle for longer are closed by http.Server.Shutdown.
func (srv *Server) quiesceHTTP(ctx context.Context) {
	srv.draining.Store(true)
	srv.conns.arrived()
	defer srv.closeHTTPListener()
	ctx, cancel := context.WithTimeout(ctx, min(srv.o.shutdownTimeout/2, httpQuiesceMax))
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		s := srv.conns.snapshot(httpIdleGrace)
		queued, _ := acceptQueue(srv.rawHTTPListener())
		if s.open == 0 && queued == 0 && s.quiet >= httpQuietPeriod {
			return
		}
		if srv.httpInFlight.Load() == 0 && s.fresh == 0 && s.recentlyIdle == 0 && queued == 0 && s.quiet >= httpQuietPeriod {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// closeHTTPListener closes the HTTP listener and answers the held refusals.
func (srv *Server) closeHTTPListener() {
	if srv.httpLis != nil {
		_ = srv.httpLis.Close()
	}
	select {
	case <-srv.httpClosed:
	default:
		close(srv.httpClosed)
	}
}

// rawHTTPListener is the HTTP listener as bound (for acceptQueue).
func (srv *Server) rawHTTPListener() net.Listener {
	if l, ok := srv.httpLis.(*closeOnce); ok {
		return l.Listener
	}
	return srv.httpLis
}

// httpQuietPeriod is how long no HTTP connection or request may have arrived, and no
// connection closed, before Shutdown closes the HTTP listener.
const httpQuietPeriod = 50 * time.Millisecond

// httpIdleGrace is how long a connection idle between requests is left to its client's
// next request at Shutdown.
const httpIdleGrace = 250 * time.Millisecond

// httpQuiesceMax bounds how long Shutdown waits for the HTTP listener to be quiet.
const httpQuiesceMax = 2 * time.Second

// refusedWhileDraining answers an HTTP/1.x request that arrived after Shutdown began:
// once the HTTP listener is closed (quiesceHTTP), 503 with Retry-After, and the
// connection closed after the answer. It reports whether it answered. HTTP/2 requests
// are left to the HTTP/2 server's GOAWAY.
func (srv *Server) refusedWhileDraining(w http.ResponseWriter, r *http.Request) bool {
	if !srv.draining.Load() {
		return false
	}
	srv.conns.arrived()
	if r.ProtoMajor != 1 {
		return false
	}
	select {
	case <-srv.httpClosed:
	case <-r.Context().Done():
		return true
	}
	w.Header().Set("Connection", "close")
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "a2abind: the agent is shutting down; the request was not processed", http.StatusServiceUnavailable)
	return true
}

// drainingWriter adds Connection: close to an HTTP/1.x answer whose status is written
// once Shutdown began, so that its client opens a new connection for the next request
// rather than reusing one that is about to close.
type drainingWriter struct {
	http.ResponseWriter
	srv   *Server
	wrote bool
}

// Unwrap lets http.ResponseController reach the connection.
func (w *drainingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *drainingWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.wrote = true
		if w.srv.draining.Load() {
			w.Header().Set("Connection", "close")
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *drainingWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes a flush on (SSE streams).
func (w *drainingWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// drainGRPC lets in-flight calls finish (GOAWAY; new calls go elsewhere) until ctx ends,
// then closes every connection: grpc-go's transports with Stop, and those still in
// their handshake (an idle or half-open peer that never sent the HTTP/2 preface), which
// Stop would wait for, through the tracking listener.
func (srv *Server) drainGRPC(ctx context.Context) {
	stopped := make(chan struct{})
	go func() { srv.grpcSrv.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
		return
	case <-ctx.Done():
	}
	n := 0
	if t, ok := srv.grpcLis.(*connTracker); ok {
		n = t.closeAll()
	}
	srv.grpcSrv.Stop()
	<-stopped
	srv.log.Warn("gRPC drain timed out; connections closed", "connections", n)
}

// stopExecutions cancels the executions still running (a task that outlived its call, a
// stream cut by the drain deadline): a2a-go runs them detached from their requests.
func (srv *Server) stopExecutions() {
	if !srv.execs.stop(min(srv.o.shutdownTimeout, executionGrace)) {
		srv.log.Warn("executions still running after shutdown: the executor ignores its context")
	}
}

func (srv *Server) closeListeners() {
	if srv.httpLis != nil {
		_ = srv.httpLis.Close()
	}
	if srv.grpcLis != nil {
		_ = srv.grpcLis.Close()
	}
}

func (srv *Server) event(name string) {
	if f := srv.o.hooks.event; f != nil {
		f(name)
	}
}

// Wait blocks until Shutdown has finished and returns the error of a listener that
// failed on its own (nil after a requested shutdown).
func (srv *Server) Wait() error {
	<-srv.done
	srv.serveErrMu.Lock()
	defer srv.serveErrMu.Unlock()
	return srv.serveErr
}

// Done is closed when Shutdown has finished.
func (srv *Server) Done() <-chan struct{} { return srv.done }

// checkHosts are the host:port of every interface's local address.
func (srv *Server) checkHosts() []string {
	var out []string
	for _, i := range srv.local {
		if a, err := addr.ParseAddress(i.URL, i.Binding); err == nil && a.HostPort() != "" {
			out = append(out, a.HostPort())
		}
	}
	return out
}
