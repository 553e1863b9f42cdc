package telemetry_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/internal/telemetry"
)

func echoBody(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	_, _ = w.Write([]byte("ok"))
}

func serveOnce(h http.Handler) {
	r := httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(`{"jsonrpc":"2.0"}`))
	h.ServeHTTP(httptest.NewRecorder(), r)
}

// TestHandlerCostsNothingWhenOff: while tracing is off, a request through Handler
// allocates exactly what it does without it (otelhttp's own no-op path would add
// about 30 allocations a request).
func TestHandlerCostsNothingWhenOff(t *testing.T) {
	clearEnv(t)
	plain := http.HandlerFunc(echoBody)
	wrapped := telemetry.Handler(plain, "test")
	base := testing.AllocsPerRun(200, func() { serveOnce(plain) })
	got := testing.AllocsPerRun(200, func() { serveOnce(wrapped) })
	if got != base {
		t.Errorf("a request through Handler allocates %.0f times, %.0f without it", got, base)
	}
}

// BenchmarkHandlerOff compares a request through Handler, tracing off, with the bare
// handler in the same run: the ratio of the two is the cost (1.0: none).
func BenchmarkHandlerOff(b *testing.B) {
	plain := http.HandlerFunc(echoBody)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare", plain}, {"handler-off", telemetry.Handler(plain, "bench")}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				serveOnce(c.h)
			}
		})
	}
}
