package guard_test

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/server"
)

// integrityCalls is how many calls of each kind the integrity tests make through the
// guard: the full 1,000 without the race detector (./test.sh runs them so), fewer under
// it, which slows every call down several times.
func integrityCalls() int {
	if raceEnabled {
		return 150
	}
	return 1000
}

// integrityWorkers is how many clients call at once.
const integrityWorkers = 6

// behindGuard starts an a2abind server (JSON-RPC, HTTP+JSON, and gRPC on its HTTP port)
// whose card names the guard, and the guard in front of it, its card published; it
// returns the guard.
func behindGuard(t *testing.T) *guard.Guard {
	t.Helper()
	lis := listen(t)
	front := "http://" + lis.Addr().String()
	srv, err := server.New(lab.Echo{}, server.WithHTTPAddr("127.0.0.1:0"), server.WithGRPCOnHTTP(), server.WithPublicURL(front),
		server.WithAgentInfo("integrity", "an a2abind agent behind a guard", "1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	g := startGuard(t, "http://"+srv.HTTPAddr(), guard.WithListener(lis), guard.WithLogger(slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if s := g.State(); !s.Published {
		t.Fatalf("card withheld: %s %+v", s.Reason, s.Findings)
	}
	return g
}

// hammer runs call n times on integrityWorkers goroutines, each with its own client
// (kept across its calls, so connections are reused as a client in a loop reuses
// them), and fails t with every call that did not complete.
func hammer(t *testing.T, ep *a2a.AgentInterface, n int, call func(context.Context, *a2aclient.Client, int) error, opts ...a2aclient.FactoryOption) {
	t.Helper()
	inParallel(t, string(ep.ProtocolBinding), n, func(ctx context.Context) (func(context.Context, int) error, func()) {
		client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{ep}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return func(ctx context.Context, i int) error { return call(ctx, client, i) }, func() { _ = client.Destroy() }
	})
}

// inParallel runs n calls on integrityWorkers goroutines, each with the call (and the
// cleanup) newCall gives it, and fails t with every call that did not complete.
func inParallel(t *testing.T, what string, n int, newCall func(context.Context) (call func(context.Context, int) error, done func())) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var next, failed atomic.Int64
	var mu sync.Mutex
	var first []string
	var wg sync.WaitGroup
	for range integrityWorkers {
		call, done := newCall(ctx)
		wg.Go(func() {
			defer done()
			for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
				if err := call(ctx, i); err != nil {
					failed.Add(1)
					mu.Lock()
					if len(first) < 5 {
						first = append(first, fmt.Sprintf("call %d: %v", i, err))
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		t.Errorf("%d of %d %s calls through the guard did not complete; first: %q", f, n, what, first)
	}
}

// unary sends message i and checks that the echo of its text comes back whole.
func unary(ctx context.Context, c *a2aclient.Client, i int) error {
	text := fmt.Sprintf("call %d", i)
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))})
	if err != nil {
		return err
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 || task.Artifacts[0].Parts[0].Text() != text {
		return fmt.Errorf("answer %+v is not the completed echo of %q", res, text)
	}
	return nil
}

// streamed sends message i as a stream and checks that every event arrives, the echo
// and the final completed status included.
func streamed(ctx context.Context, c *a2aclient.Client, i int) error {
	text := fmt.Sprintf("stream %d", i)
	var echoed, completed bool
	for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}) {
		if err != nil {
			return err
		}
		switch e := ev.(type) {
		case *a2a.TaskArtifactUpdateEvent:
			echoed = len(e.Artifact.Parts) == 1 && e.Artifact.Parts[0].Text() == text
		case *a2a.TaskStatusUpdateEvent:
			completed = e.Status.State == a2a.TaskStateCompleted
		}
	}
	if !echoed || !completed {
		return fmt.Errorf("stream ended without the echo (%v) or the completed status (%v)", echoed, completed)
	}
	return nil
}

// TestProxyCutsNoAnswer: at least 1,000 unary calls and 1,000 streams per HTTP binding,
// several clients at once on kept-alive connections, all through the guard, and every
// answer arrives whole. Go's HTTP/1 server closes a request body once the handler
// writes its answer, while the proxy's transport may still be reading it
// (golang/go#40747): without full duplex, 1-3% of the answers were cut.
func TestProxyCutsNoAnswer(t *testing.T) {
	t.Parallel()
	addr := behindGuard(t).Addr()
	n := integrityCalls()
	for _, b := range []struct {
		binding a2a.TransportProtocol
		url     string
	}{
		{a2a.TransportProtocolJSONRPC, "http://" + addr + server.PathJSONRPC},
		{a2a.TransportProtocolHTTPJSON, "http://" + addr + server.PathREST},
	} {
		ep := &a2a.AgentInterface{URL: b.url, ProtocolBinding: b.binding, ProtocolVersion: a2a.ProtocolVersion(card.V1)}
		t.Run(string(b.binding)+"/unary", func(t *testing.T) { hammer(t, ep, n, unary) })
		t.Run(string(b.binding)+"/stream", func(t *testing.T) { hammer(t, ep, n, streamed) })
	}
}

// TestProxyCutsNoGRPCAnswer: the same over gRPC on the upstream's HTTP port
// (--grpc-on-http), proxied as cleartext HTTP/2.
func TestProxyCutsNoGRPCAnswer(t *testing.T) {
	t.Parallel()
	addr := behindGuard(t).Addr()
	n := integrityCalls()
	ep := &a2a.AgentInterface{URL: addr, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.ProtocolVersion(card.V1)}
	opt := a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))
	t.Run("unary", func(t *testing.T) { hammer(t, ep, n, unary, opt) })
	t.Run("stream", func(t *testing.T) { hammer(t, ep, n, streamed, opt) })
}

// TestProxyIsFullDuplex: an upstream that answers while it still reads the request
// (it streams its first event after the first part of the body, its last after the
// rest). The client sends the second part only once it has the first event. Go's
// HTTP/1 server, unless full duplex, reads and closes the rest of a request body when
// the handler writes its first answer bytes; the proxy's transport then fails to read
// the body it forwards and drops the upstream connection, cutting the answer
// (golang/go#40747). Through the guard the whole answer arrives.
func TestProxyIsFullDuplex(t *testing.T) {
	t.Parallel()
	duplex := func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		first := make([]byte, 5)
		if _, err := io.ReadFull(r.Body, first); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", first)
		w.(http.Flusher).Flush()
		rest, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		fmt.Fprintf(w, "data: %s\n\ndata: end\n\n", rest)
	}
	// The card published, so nothing of a request is read before it is proxied.
	g := guardOver(t, "/stream", duplex)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for i := range 20 {
		pr, pw := io.Pipe()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.URL()+"/stream", pr)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = 10
		// A proxy that waits for the rest of the body before it answers would hang the
		// test: the pipe fails after a bound instead.
		stop := time.AfterFunc(10*time.Second, func() { pw.CloseWithError(errors.New("no first event within 10s")) })
		go func() {
			_, _ = io.WriteString(pw, "hello")
		}()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		br := bufio.NewReader(resp.Body)
		if line, err := br.ReadString('\n'); err != nil || line != "data: hello\n" {
			t.Fatalf("request %d: first event %q, %v", i, line, err)
		}
		_, _ = io.WriteString(pw, "world")
		_ = pw.Close()
		rest, err := io.ReadAll(br)
		_ = resp.Body.Close()
		stop.Stop()
		if err != nil || !strings.HasSuffix(string(rest), "data: world\n\ndata: end\n\n") {
			t.Fatalf("request %d: the answer was cut after the first event: %q, %v", i, rest, err)
		}
	}
}

// tWriter logs the guard's warnings (a proxied request that failed, and why) through
// t, shown when the test fails.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// TestProxyCutsNoEarlyAnswer: upstreams that answer a large POST before they read all
// of its body (as gateways that refuse early do), with or without 1xx answers and
// trailers. Several clients at once send 300 KB bodies through the guard on kept-alive
// connections, and every answer arrives whole, 1xx and trailers included: never a
// reset, a cut, an empty 200 or a 502. The guard used to die here ("invalid concurrent
// Body.Read call", golang/go#68560) and cut 1-38% of the answers before it died.
func TestProxyCutsNoEarlyAnswer(t *testing.T) {
	t.Parallel()
	const refusal = "a2abind test: refused early\n"
	g := guardOver(t, "/early", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.RawQuery {
		case "half":
			_, _ = io.CopyN(io.Discard, r.Body, earlyBodySize/2)
		case "continue": // Go's server sends 100 Continue at the first read
			_, _ = io.Copy(io.Discard, r.Body)
		case "hints":
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Set("Trailer", "X-Refusal")
			defer w.Header().Set("X-Refusal", "early")
		case "drain":
			// The whole answer first, then the body read and thrown away, the
			// connection kept (as nginx refuses).
			_ = http.NewResponseController(w).EnableFullDuplex()
			w.Header().Set("Content-Length", strconv.Itoa(len(refusal)))
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = io.WriteString(w, refusal)
			_ = http.NewResponseController(w).Flush()
			_, _ = io.Copy(io.Discard, r.Body)
			return
		}
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = io.WriteString(w, refusal)
	})
	body := strings.Repeat("x", earlyBodySize)
	n := 150
	if raceEnabled {
		n = 40
	}
	for _, q := range []string{"unread", "half", "drain", "hints", "expect", "continue"} {
		t.Run(q, func(t *testing.T) {
			inParallel(t, "early "+q, n, func(context.Context) (func(context.Context, int) error, func()) {
				c := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 10 * time.Second}}
				return func(ctx context.Context, _ int) error {
					var infos []int
					ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
						// A repeated 100 Continue is legal and harmless (RFC 9110 §15.2: a
						// client parses one or more 1xx): the upstream's, forwarded, and
						// Go's server's own when the transport reads the body can both go.
						if code != http.StatusContinue || !slices.Contains(infos, code) {
							infos = append(infos, code)
						}
						return nil
					}})
					req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.URL()+"/early?"+q, strings.NewReader(body))
					if err != nil {
						return err
					}
					if q == "expect" || q == "continue" {
						req.Header.Set("Expect", "100-continue")
					}
					resp, err := c.Do(req)
					if err != nil {
						return err
					}
					defer resp.Body.Close()
					b, err := io.ReadAll(resp.Body)
					want := map[string]string{"hints": "[103] early", "continue": "[100] "}[q]
					if got := fmt.Sprint(infos, " ", resp.Trailer.Get("X-Refusal")); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge ||
						string(b) != refusal || got != cmp.Or(want, "[] ") {
						return fmt.Errorf("answer %d %q (1xx and trailer %q), %v; want the upstream's 413 %q whole (%q)", resp.StatusCode, b, got, err, refusal, want)
					}
					return nil
				}, c.CloseIdleConnections
			})
		})
	}
}

// earlyBodySize is the size of the bodies TestProxyCutsNoEarlyAnswer sends: more than Go's
// HTTP/1 server drains after a handler (256 KB).
const earlyBodySize = 300 << 10
