package guard_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// startGuard starts a guard in front of upstream and shuts it down when the test ends.
func startGuard(t *testing.T, upstream string, opts ...guard.Option) *guard.Guard {
	t.Helper()
	return startGuardB(t, upstream, opts...)
}

// startGuardB is startGuard for tests and benchmarks.
func startGuardB(t testing.TB, upstream string, opts ...guard.Option) *guard.Guard {
	t.Helper()
	g, err := guard.New(upstream, opts...)
	if err != nil {
		t.Fatalf("guard.New(%s) = %v", upstream, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		t.Fatalf("Start() = %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := g.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown() = %v", err)
		}
	})
	return g
}

// listen opens a loopback listener for a guard whose address the upstream's card must
// name before the guard exists.
func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// answer is one HTTP answer of the guard.
type answer struct {
	status int
	header http.Header
	body   string
}

// get fetches url (with optional request headers as key, value pairs) and closes the
// connection after.
func get(t *testing.T, url string, kv ...string) answer {
	t.Helper()
	req := newRequest(t, http.MethodGet, url, nil)
	req.Close = true
	a, err := send(t, req, kv...)
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return a
}

// do sends method to url with optional headers (key, value pairs).
func do(t *testing.T, method, url string, kv ...string) answer {
	t.Helper()
	a, _ := send(t, newRequest(t, method, url, nil), kv...)
	return a
}

// post sends body to url as JSON and returns the answer.
func post(t *testing.T, url, body string, kv ...string) answer {
	t.Helper()
	req := newRequest(t, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	a, _ := send(t, req, kv...)
	return a
}

func newRequest(t *testing.T, method, url string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// send sets the headers (key, value pairs) on req and sends it; err is only an error
// reading the answer's body (up to card.DefaultMaxBytes), which the answer then holds
// in part.
func send(t *testing.T, req *http.Request, kv ...string) (answer, error) {
	t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, card.DefaultMaxBytes))
	return answer{resp.StatusCode, resp.Header, string(b)}, err
}

func cardOf(g *guard.Guard) string { return g.URL() + card.WellKnownPath }

// guardOver starts a healthy lab agent whose path is served by h instead (a hostile or
// unusual upstream), and a guard in front of it, its card published.
func guardOver(t *testing.T, path string, h http.HandlerFunc, opts ...guard.Option) *guard.Guard {
	t.Helper()
	a := labtest.Start(t, append(lab.Healthy(), lab.WithHTTPMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == path {
				h(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}))...)
	g := startGuard(t, a.BaseURL, opts...)
	if s := g.State(); !s.Published {
		t.Fatalf("card withheld: %s", s.Reason)
	}
	return g
}

// option is the guard option that logs to l.
func (l *logBuffer) option() guard.Option {
	return guard.WithLogger(slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})))
}
