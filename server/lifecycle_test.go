package server

import (
	"context"
	"errors"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

type tw struct{ t *testing.T }

func (w tw) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// httpClient bounds each raw request generously: the machine may be loaded and the race
// detector slow (an 8 MiB body took 7 s under both).
var httpClient = &http.Client{Timeout: 30 * time.Second}

// get fetches url and returns the status, headers and (bounded) body.
func get(t *testing.T, url string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(body)
}

// cardHammer fetches the card from several goroutines until stopped and records, for
// every 200, whether gRPC was registered when the answer arrived.
type cardHammer struct {
	ok, early, refused atomic.Int64
	stop               chan struct{}
	wg                 sync.WaitGroup
}

func hammerCard(url string, registered *atomic.Bool) *cardHammer {
	h := &cardHammer{stop: make(chan struct{})}
	for range 4 {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			for {
				select {
				case <-h.stop:
					return
				default:
				}
				resp, err := httpClient.Get(url)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
					if !registered.Load() {
						h.early.Add(1)
					}
					h.ok.Add(1)
				case http.StatusServiceUnavailable:
					if resp.Header.Get("Retry-After") != "" {
						h.refused.Add(1)
					}
				}
			}
		}()
	}
	return h
}

func (h *cardHammer) halt() { close(h.stop); h.wg.Wait() }

// TestCardNotServedBeforeGRPCRegistered reproduces the seed's registration race: the
// HTTP listener (card included) serves while the gRPC service is not registered yet.
// No request for the card may succeed in that window.
func TestCardNotServedBeforeGRPCRegistered(t *testing.T) {
	var registered atomic.Bool
	reached, release := make(chan struct{}), make(chan struct{})
	srv := newServer(t, WithGRPCAddr("127.0.0.1:0"), WithLogger(slog.New(slog.NewTextHandler(tw{t}, nil))), withHooks(hooks{
		beforeGRPCRegister: func() { close(reached); <-release },
		event: func(e string) {
			if e == "grpc-registered" {
				registered.Store(true)
			}
		},
	}))
	started := make(chan error, 1)
	go func() { started <- srv.Start(t.Context()) }()
	<-reached

	h := hammerCard(srv.CardURL(), &registered)
	// In the window: the card and readiness are refused, liveness answers, and the gRPC
	// port accepts TCP but serves nothing.
	if code, hdr, _ := get(t, srv.CardURL()); code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" {
		t.Errorf("card before registration = %d (Retry-After %q), want 503 with Retry-After", code, hdr.Get("Retry-After"))
	}
	if code, _, _ := get(t, srv.LocalBaseURL()+PathReadyz); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before registration = %d, want 503", code)
	}
	if code, _, _ := get(t, srv.LocalBaseURL()+PathHealthz); code != http.StatusOK {
		t.Errorf("/healthz before registration = %d, want 200", code)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	grpcIface := card.Interface{URL: srv.GRPCAddr(), Binding: a2a.TransportProtocolGRPC, ProtocolVersion: card.V1}
	if r := probe.Interface(ctx, grpcIface); r.Outcome == wire.Served {
		t.Errorf("probe of gRPC before registration = served, want a failure")
	}
	cancel()
	for h.refused.Load() < 20 { // let the hammer see the window
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-started; err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	for h.ok.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	h.halt()
	if n := h.early.Load(); n != 0 {
		t.Errorf("%d card requests succeeded before the gRPC handler was registered", n)
	}
	if sendErr := func() error {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		_, err := sendEcho(ctx, grpcIface, grpcInsecure)
		return err
	}(); sendErr != nil {
		t.Errorf("gRPC SendMessage after the card was published: %v", sendErr)
	}
	t.Logf("card refused %d times in the window, served %d times after", h.refused.Load(), h.ok.Load())
}

// TestSelfCheckRefusesAnUnregisteredGRPCService is the seed's :9443: the gRPC listener
// accepts connections with no A2A service registered. Start must fail and the card must
// never be served.
func TestSelfCheckRefusesAnUnregisteredGRPCService(t *testing.T) {
	var never atomic.Bool
	srv := newServer(t, WithGRPCAddr("127.0.0.1:0"), WithSelfCheckTimeout(2*time.Second),
		withHooks(hooks{skipGRPCRegister: true}))
	h := hammerCard(srv.CardURL(), &never)
	err := srv.Start(t.Context())
	h.halt()
	if !errors.Is(err, ErrSelfCheck) {
		t.Fatalf("Start() error = %v, want errors.Is ErrSelfCheck", err)
	}
	var se *SelfCheckError
	if !errors.As(err, &se) {
		t.Fatalf("Start() error = %T, want *SelfCheckError", err)
	}
	var outcomes []string
	for _, r := range se.Results {
		outcomes = append(outcomes, string(r.Interface.Binding)+"="+string(r.Outcome))
	}
	want := []string{"JSONRPC=served", "GRPC=handler_missing", "HTTP+JSON=served"}
	if !slices.Equal(outcomes, want) {
		t.Errorf("self-check outcomes = %v, want %v", outcomes, want)
	}
	if n := h.ok.Load(); n != 0 {
		t.Errorf("the card was served %d times although gRPC had no handler", n)
	}
	if h.refused.Load() == 0 {
		t.Errorf("no card request was answered 503 during the self-check: the hammer checked nothing")
	}
	if srv.Ready() {
		t.Errorf("Ready() = true after a failed self-check")
	}
	if _, err := net.DialTimeout("tcp", srv.HTTPAddr(), time.Second); err == nil {
		t.Errorf("HTTP listener still open after a failed Start")
	}
}

// gatedExecutor echoes like Echo, but each Execute first signals entered and waits for
// release (or its context).
type gatedExecutor struct {
	entered chan struct{}
	release chan struct{}
}

func (g gatedExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		g.entered <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
			yield(nil, ctx.Err())
			return
		}
		for ev, err := range (Echo{}).Execute(ctx, ec) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

func (g gatedExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return (Echo{}).Cancel(ctx, ec)
}

type eventLog struct {
	mu sync.Mutex
	ev []string
}

func (l *eventLog) add(e string) { l.mu.Lock(); l.ev = append(l.ev, e); l.mu.Unlock() }
func (l *eventLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.ev)
}

// TestShutdownWithdrawsCardBeforeClosingBindings checks the shutdown order: the card and
// readiness answer 503 while the bindings still serve, in-flight calls on every binding
// complete, and only then do the listeners close.
func TestShutdownWithdrawsCardBeforeClosingBindings(t *testing.T) {
	exec := gatedExecutor{entered: make(chan struct{}, 4), release: make(chan struct{})}
	var events eventLog
	withdrawn, proceed := make(chan struct{}), make(chan struct{})
	srv, err := New(exec, echoInfo, WithGRPCAddr("127.0.0.1:0"), WithShutdownTimeout(10*time.Second), withHooks(hooks{
		event:         events.add,
		afterWithdraw: func() { close(withdrawn); <-proceed },
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	// One call in flight on each binding.
	ifaces := srv.Card().Interfaces
	results := make(chan error, len(ifaces))
	for _, iface := range ifaces {
		go func() {
			got, err := sendEcho(ctx, iface, grpcInsecure)
			if err == nil && got != "ping" {
				err = errors.New("wrong echo " + got)
			}
			if err != nil {
				err = errors.New(iface.String() + ": " + err.Error())
			}
			results <- err
		}()
	}
	for range ifaces {
		<-exec.entered
	}

	shutdown := make(chan error, 1)
	go func() { shutdown <- srv.Shutdown(context.Background()) }()
	<-withdrawn
	if code, hdr, _ := get(t, srv.CardURL()); code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" {
		t.Errorf("card after withdrawal = %d, want 503 with Retry-After", code)
	}
	if code, _, _ := get(t, srv.LocalBaseURL()+PathReadyz); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz after withdrawal = %d, want 503", code)
	}
	if code, _, _ := get(t, srv.LocalBaseURL()+PathHealthz); code != http.StatusOK {
		t.Errorf("/healthz after withdrawal = %d, want 200 (the bindings still serve)", code)
	}
	if srv.Ready() {
		t.Errorf("Ready() = true after withdrawal")
	}
	close(proceed)
	close(exec.release)
	for range ifaces {
		if err := <-results; err != nil {
			t.Errorf("in-flight call was not drained: %v", err)
		}
	}
	if err := <-shutdown; err != nil {
		t.Errorf("Shutdown() error = %v", err)
	}
	got := events.list()
	at := func(e string) int { return slices.Index(got, e) }
	if at("ready") < 0 || at("withdrawn") < at("ready") || at("http-closed") < at("withdrawn") || at("grpc-closed") < at("withdrawn") {
		t.Errorf("events = %v, want ready, withdrawn, then http-closed and grpc-closed", got)
	}
	for _, addr := range []string{srv.HTTPAddr(), srv.GRPCAddr()} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts after Shutdown", addr)
		}
	}
}

// TestShutdownIsBounded: a handler that never returns cannot hold Shutdown past the
// shutdown timeout; the stuck connections are closed.
func TestShutdownIsBounded(t *testing.T) {
	exec := gatedExecutor{entered: make(chan struct{}, 4), release: make(chan struct{})}
	t.Cleanup(func() { close(exec.release) })
	srv, err := New(exec, echoInfo, WithGRPCAddr("127.0.0.1:0"), WithShutdownTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	results := make(chan error, 2)
	for _, iface := range srv.Card().Interfaces[:2] { // JSON-RPC and gRPC
		go func() { _, err := sendEcho(ctx, iface, grpcInsecure); results <- err }()
	}
	<-exec.entered
	<-exec.entered
	err = srv.Shutdown(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown() error = %v, want the HTTP drain's deadline", err)
	}
	for range 2 {
		if err := <-results; err == nil {
			t.Errorf("a stuck call succeeded although its connection was closed")
		}
	}
	if err := srv.Wait(); err != nil {
		t.Errorf("Wait() = %v, want nil", err)
	}
}

func TestShutdownBeforeStartReleasesListeners(t *testing.T) {
	srv, err := New(Echo{}, echoInfo, WithGRPCAddr("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown() error = %v", err)
	}
	if err := srv.Start(t.Context()); err == nil {
		t.Errorf("Start() after Shutdown = nil, want an error")
	}
	if c, err := net.DialTimeout("tcp", srv.HTTPAddr(), time.Second); err == nil {
		c.Close()
		t.Errorf("listener still open")
	}
}
