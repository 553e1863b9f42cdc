package guard_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
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
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	req.Close = true
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, card.DefaultMaxBytes))
	if err != nil {
		t.Fatalf("GET %s: reading the body: %v", url, err)
	}
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func cardOf(g *guard.Guard) string { return g.URL() + card.WellKnownPath }
