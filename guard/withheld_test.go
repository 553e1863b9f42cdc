package guard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// lyingMarker is in every card the lying upstream serves.
const lyingMarker = "LYING-CARD"

// lyingUpstream serves its lying card (a JSON-RPC interface nobody serves) at every
// card spelling under any prefix, at the extended card paths, and to a JSON-RPC
// GetExtendedAgentCard; any other request is answered "proxied" with the headers it
// carried. It takes the path from X-Original-URL, X-Rewrite-URL or
// X-Envoy-Original-Path when a request has one. Its base URL has the path /agent.
func lyingUpstream(t *testing.T) (base string, seen func() []http.Header) {
	t.Helper()
	var mu sync.Mutex
	var headers []http.Header
	var up *httptest.Server
	up = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		low := strings.ToLower(r.URL.Path)
		for _, k := range []string{"X-Original-URL", "X-Rewrite-URL", "X-Envoy-Original-Path"} {
			if v := r.Header.Get(k); v != "" {
				low = strings.ToLower(v) // as IIS, Symfony or Envoy read it
			}
		}
		if strings.HasSuffix(low, ".json") || strings.HasSuffix(low, "extendedagentcard") || strings.HasSuffix(low, "/v1/card") ||
			strings.Contains(strings.ToLower(string(body)), "extended") || low == "/agent" && r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(lab.V1Card(lyingMarker, lab.Decl{URL: up.URL + "/agent/jsonrpc", Binding: lab.JSONRPC, Version: card.V1}))
			return
		}
		_, _ = io.WriteString(w, "proxied")
	}))
	t.Cleanup(up.Close)
	return up.URL + "/agent", func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		return append([]http.Header(nil), headers...)
	}
}

// TestNoWithheldCardAtAnyPath: the upstream's base URL has a path, and it serves its
// lying card under that prefix, at the legacy path, for other agents' prefixes, at the
// extended card endpoints of every binding, and to JSON-RPC in any spelling a parser
// might read as GetExtendedAgentCard. While the guard withholds the card, none of it
// passes; ordinary requests still do.
func TestNoWithheldCardAtAnyPath(t *testing.T) {
	t.Parallel()
	upstream, _ := lyingUpstream(t)
	g := startGuard(t, upstream)
	if s := g.State(); s.Published {
		t.Fatal("the lying card was published")
	}
	withheld := func(r answer) bool {
		return r.status == http.StatusServiceUnavailable && r.header.Get("Retry-After") != "" && !strings.Contains(r.body, lyingMarker)
	}
	for _, p := range []string{
		"/agent", "/agent/.well-known/agent-card.json", "/agent/.well-known/agent.json", "/AGENT/.well-known/Agent-Card.json",
		"/agent//.well-known/./agent-card.json", "/agent/.well-known/agent-card.json;v=1", `/agent\.well-known\agent-card.json`,
		"/agent/%2Ewell-known/agent-card.json", "/.well-known/agent.json", card.WellKnownPath,
	} {
		if r := get(t, g.URL()+p); !withheld(r) {
			t.Errorf("GET %s = %d %q, want the withheld card (503 with Retry-After)", p, r.status, r.body)
		}
	}
	for _, p := range []string{"/other/.well-known/agent-card.json", "/x/y/.well-known/agent.json"} {
		if r := get(t, g.URL()+p); r.status != http.StatusNotFound || strings.Contains(r.body, lyingMarker) {
			t.Errorf("GET %s (another agent's card path) = %d %q, want 404 without the upstream's card", p, r.status, r.body)
		}
	}
	for _, p := range []string{"/agent/a2a/rest/extendedAgentCard", "/tenant/extendedagentcard", "/agent/v1/card", "/v1/card"} {
		if r := get(t, g.URL()+p); !withheld(r) {
			t.Errorf("GET %s = %d %q, want the extended card withheld", p, r.status, r.body)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}`,
		`{"jsonrpc":"2.0","id":1,"method":"agent/getAuthenticatedExtendedCard"}`,
		`{"jsonrpc":"2.0","id":1,"METHOD":"getextendedagentcard"}`,
		`{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"GetExtendedAgentCard"}`,
		`{"jsonrpc":"2.0","id":1,"method":"GetExtended\u0041gentCard"}`,
		`{"params":{"pad":"` + strings.Repeat("x", 100_000) + `"},"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"GetTask"},{"jsonrpc":"2.0","id":2,"method":"GetExtendedAgentCard"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard",}`, // not JSON; a lenient parser reads it
	} {
		if r := post(t, g.URL()+"/agent/jsonrpc", body); !withheld(r) {
			t.Errorf("POST %.80s = %d %q, want the extended card withheld", body, r.status, r.body)
		}
	}
	for _, k := range []string{"X-Original-URL", "X-Rewrite-URL", "X-Envoy-Original-Path"} {
		if r := post(t, g.URL()+"/agent/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, k, "/agent/.well-known/agent-card.json"); r.status != http.StatusOK || r.body != "proxied" {
			t.Errorf("an ordinary call with %s naming the card = %d %q, want it proxied without the header", k, r.status, r.body)
		}
	}
	if r := post(t, g.URL()+"/agent/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`); r.status != http.StatusOK || r.body != "proxied" {
		t.Errorf("an ordinary call = %d %q, want it proxied", r.status, r.body)
	}
	if r := post(t, g.URL()+"/agent/jsonrpc", strings.Repeat(" ", 9<<20)); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body too large to inspect while the card is withheld = %d, want 413", r.status)
	}
	conn, err := grpc.NewClient(g.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err = a2apb.NewA2AServiceClient(conn).GetExtendedAgentCard(ctx, &a2apb.GetExtendedAgentCardRequest{})
	if status.Code(err) != codes.Unavailable || !strings.Contains(status.Convert(err).Message(), "withheld") {
		t.Errorf("gRPC GetExtendedAgentCard = %v, want UNAVAILABLE saying the card is withheld", err)
	}
}

// TestExtendedCardPassesWhilePublished: with the card published unchanged the extended
// card endpoints are the upstream's own, proxied.
func TestExtendedCardPassesWhilePublished(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, append(lab.Healthy(), lab.WithHTTPMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/extendedAgentCard") {
				_, _ = io.WriteString(w, "upstream extended card")
				return
			}
			next.ServeHTTP(w, r)
		})
	}))...)
	g := startGuard(t, a.BaseURL)
	if s := g.State(); !s.Published {
		t.Fatalf("card withheld: %s", s.Reason)
	}
	if r := get(t, g.URL()+lab.PathREST+"/extendedAgentCard"); r.status != http.StatusOK || r.body != "upstream extended card" {
		t.Errorf("extended card while published = %d %q, want the upstream's", r.status, r.body)
	}
}

// TestClientAddressHeadersAreTheGuards: what a client says about its own address never
// reaches the upstream; X-Forwarded-For is the peer the guard saw.
func TestClientAddressHeadersAreTheGuards(t *testing.T) {
	t.Parallel()
	upstream, seen := lyingUpstream(t)
	g := startGuard(t, upstream)
	const spoof = "203.0.113.66"
	r := post(t, g.URL()+"/agent/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"GetTask"}`,
		"X-Real-IP", spoof, "X-Forwarded-For", spoof, "Forwarded", "for="+spoof, "True-Client-IP", spoof, "X-Client-IP", spoof,
		"CF-Connecting-IP", spoof)
	if r.body != "proxied" {
		t.Fatalf("call = %d %q, want it proxied", r.status, r.body)
	}
	hs := seen()
	h := hs[len(hs)-1]
	for k, vs := range h {
		if strings.Contains(strings.Join(vs, ","), spoof) {
			t.Errorf("the upstream got the client's %s: %q", k, vs)
		}
	}
	if got := h.Get("X-Forwarded-For"); got != "127.0.0.1" {
		t.Errorf("X-Forwarded-For = %q, want the peer 127.0.0.1", got)
	}
}

// TestProxiedRequestsAreBounded: beyond WithMaxProxied requests in flight (streams
// held open), the next gets 503 with Retry-After; once one ends, requests pass again.
func TestProxiedRequestsAreBounded(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(2)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/hold" {
			_, _ = io.WriteString(w, "quick")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: held\n\n")
		w.(http.Flusher).Flush()
		started.Done()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(up.Close)
	g := startGuard(t, up.URL, guard.WithMaxProxied(2))
	done := make(chan error, 2)
	for range 2 {
		go func() {
			r := get(t, g.URL()+"/hold")
			if r.body != "data: held\n\n" {
				done <- &badAnswer{r}
				return
			}
			done <- nil
		}()
	}
	started.Wait()
	if r := get(t, g.URL()+"/quick"); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "in flight") {
		t.Errorf("a third request with two streams held = %d %q, want 503 with Retry-After", r.status, r.body)
	}
	if r := get(t, cardOf(g)); r.status == http.StatusServiceUnavailable && strings.Contains(r.body, "in flight") {
		t.Errorf("the card endpoint counts against the proxy bound: %q", r.body)
	}
	close(release)
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if r := get(t, g.URL()+"/quick"); r.status != http.StatusOK || r.body != "quick" {
		t.Errorf("a request after the streams ended = %d %q, want it proxied", r.status, r.body)
	}
}

type badAnswer struct{ a answer }

func (e *badAnswer) Error() string { return "held stream answered " + e.a.body }

// TestNothingServedIsSaidOnce: a normalizing guard in front of an agent that serves
// nothing it declares says so once, in its state and in its log, naming the interface.
func TestNothingServedIsSaidOnce(t *testing.T) {
	t.Parallel()
	upstream, _ := lyingUpstream(t)
	var logged bytes.Buffer
	var mu sync.Mutex
	g := startGuard(t, upstream, guard.WithNormalize(), guard.WithLogger(slog.New(slog.NewTextHandler(lockedWriter{&mu, &logged}, nil))))
	s := g.State()
	if s.Published || strings.Count(s.Reason, "no declared interface is served") != 1 || !strings.Contains(s.Reason, "/agent/jsonrpc") {
		t.Errorf("reason = %q, want the cause once, naming the interface", s.Reason)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, line := range strings.Split(logged.String(), "\n") {
		if strings.Count(line, "no declared interface is served") > 1 {
			t.Errorf("the log repeats itself: %s", line)
		}
	}
	if !strings.Contains(logged.String(), "no declared interface is served") {
		t.Errorf("the log does not say why the card is withheld:\n%s", logged.String())
	}
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
