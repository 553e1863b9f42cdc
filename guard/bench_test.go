package guard_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// BenchmarkSendMessage measures JSON-RPC SendMessage with one warm a2a-go client, sent
// to the agent directly (the baseline) and through the guard's proxy; compare the two in
// one run (bench.sh style ratio: through-guard / direct).
func BenchmarkSendMessage(b *testing.B) {
	a := labtest.Start(b, lab.Healthy()...)
	g := startGuardB(b, a.BaseURL)
	for _, tt := range []struct{ name, base string }{{"direct", a.BaseURL}, {"through-guard", g.URL()}} {
		b.Run(tt.name, func(b *testing.B) {
			ctx := context.Background()
			client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{{
				URL: tt.base + lab.PathJSONRPC, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.ProtocolVersion(card.V1)}})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = client.Destroy() }()
			req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("bench"))}
			b.ResetTimer()
			for b.Loop() {
				if _, err := client.SendMessage(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchAnswer is a JSON-RPC SendMessage answer as a2a-go writes it (one write, with a
// Content-Length), which the upstream of BenchmarkProxyCPU gives without running
// anything: the benchmark measures the proxies, not the agent.
const benchAnswer = `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"01a25323-ce3d-7d39-aed7-7c578d6dd4b7","artifacts":[{"artifactId":"01a25323-ce3d-7e01-954c-b403a6341be1","parts":[{"text":"hi"}]}],"contextId":"01a25323-ce3d-7dbe-878c-ea0db33bc6e5","history":[{"messageId":"m1","parts":[{"text":"hi"}],"role":"ROLE_USER"}],"status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-12-08T00:53:05.213918494Z"}}}}`

const benchRequest = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`

// BenchmarkProxyCPU compares the CPU the guard's proxy spends per unary JSON-RPC call
// (access log on, to io.Discard) with a tuned httputil.ReverseProxy's (the guard's
// upstream transport settings, a pool of copy buffers, default FlushInterval), both in front of one upstream,
// taking turns in batches in one loop. The process's CPU (getrusage) per call, minus the
// same calls sent directly (client and upstream), is each proxy's; reported as
// cpu-µs/call per contender and guard/rp, the guard's over the ReverseProxy's.
func BenchmarkProxyCPU(b *testing.B) {
	a := labtest.Start(b, append(lab.Healthy(), lab.WithHTTPMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Bench") == "" {
				next.ServeHTTP(w, r)
				return
			}
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(benchAnswer)))
			_, _ = io.WriteString(w, benchAnswer)
		})
	}))...)
	g := startGuardB(b, a.BaseURL, guard.WithAccessLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	origin, err := url.Parse(a.BaseURL)
	if err != nil {
		b.Fatal(err)
	}
	rp := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:    func(pr *httputil.ProxyRequest) { pr.SetURL(origin); pr.SetXForwarded() },
		BufferPool: &benchBuffers{},
		Transport: &http.Transport{Proxy: nil, MaxIdleConns: 64, MaxIdleConnsPerHost: 32, IdleConnTimeout: 90 * time.Second,
			DialContext: (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext},
	})
	b.Cleanup(rp.Close)
	contenders := []struct{ name, base string }{{"direct", a.BaseURL}, {"reverseproxy", rp.URL}, {"guard", g.URL()}}
	clients := make([]*http.Client, len(contenders))
	for i := range clients {
		clients[i] = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 10 * time.Second}
		b.Cleanup(clients[i].CloseIdleConnections)
	}
	call := func(i int) {
		req, err := http.NewRequest(http.MethodPost, contenders[i].base+lab.PathJSONRPC, strings.NewReader(benchRequest))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Bench", "1")
		resp, err := clients[i].Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || n != int64(len(benchAnswer)) {
			b.Fatalf("%s: HTTP %d, %d bytes, %v", contenders[i].name, resp.StatusCode, n, err)
		}
	}
	for i := range contenders {
		call(i) // warm connections
	}
	const batch = 50
	cpu := make([]time.Duration, len(contenders))
	turn := 0
	for b.Loop() {
		for k := range contenders {
			i := (turn + k) % len(contenders) // each starts a turn in its own turn
			t0 := processCPU()
			for range batch {
				call(i)
			}
			cpu[i] += processCPU() - t0
		}
		turn++
	}
	calls := float64(turn * batch)
	for i, c := range contenders {
		b.ReportMetric(float64(cpu[i].Microseconds())/calls, "cpu-µs/call-"+c.name)
	}
	if rpCPU := cpu[1] - cpu[0]; rpCPU > 0 {
		b.ReportMetric(float64(cpu[2]-cpu[0])/float64(rpCPU), "guard/rp")
	}
}

// benchBuffers is the tuned ReverseProxy's pool of copy buffers.
type benchBuffers struct{ p sync.Pool }

func (b *benchBuffers) Get() []byte {
	if v, ok := b.p.Get().(*[]byte); ok {
		return *v
	}
	return make([]byte, 32<<10)
}

func (b *benchBuffers) Put(v []byte) { b.p.Put(&v) }

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
