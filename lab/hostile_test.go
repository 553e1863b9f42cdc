package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
)

// TestHostilePeersMisbehave checks that each hostile peer does what its doc says, on
// the wire, and that Close leaves none of its goroutines.
func TestHostilePeersMisbehave(t *testing.T) {
	get := func(t *testing.T, p *HostilePeer, timeout time.Duration) (*http.Response, context.CancelFunc, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), timeout)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/anything", nil)
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		return resp, cancel, err
	}
	tests := []struct {
		kind  Hostile
		check func(t *testing.T, p *HostilePeer)
	}{
		{EndlessBody, func(t *testing.T, p *HostilePeer) {
			resp, cancel, err := get(t, p, 5*time.Second)
			defer cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<20))
			if n != 4<<20 || err != nil {
				t.Errorf("read %d bytes, err %v; want 4 MiB and more to come", n, err)
			}
			// The peer counts a write when Write returns, which may be after the client
			// has read the bytes: wait for the count, boundedly, instead of racing it.
			w := p.Written()
			for end := time.Now().Add(5 * time.Second); w < n && time.Now().Before(end); w = p.Written() {
				time.Sleep(time.Millisecond)
			}
			if w < n {
				t.Errorf("Written() = %d, want at least the %d bytes read", w, n)
			}
		}},
		{TrickleHeaders, func(t *testing.T, p *HostilePeer) {
			_, cancel, err := get(t, p, 200*time.Millisecond)
			defer cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("GET = %v, want the deadline before the headers completed", err)
			}
		}},
		{TrickleBody, func(t *testing.T, p *HostilePeer) {
			resp, cancel, err := get(t, p, 200*time.Millisecond)
			defer cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if !errors.Is(err, context.DeadlineExceeded) || len(b) > 40 {
				t.Errorf("body read %d bytes, err %v; want a few bytes, then the deadline", len(b), err)
			}
		}},
		{EndlessKeepAlive, func(t *testing.T, p *HostilePeer) {
			resp, cancel, err := get(t, p, 200*time.Millisecond)
			defer cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.HasPrefix(string(b), ": keep-alive\n\n") || strings.Contains(string(b), "data:") {
				t.Errorf("stream %q (%s), want keep-alive comments only", b, resp.Header.Get("Content-Type"))
			}
		}},
		{EndlessAfterEvent, func(t *testing.T, p *HostilePeer) {
			resp, cancel, err := get(t, p, 200*time.Millisecond)
			defer cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			var doc struct {
				Result struct {
					StatusUpdate *struct{ TaskID string } `json:"statusUpdate"`
				} `json:"result"`
			}
			data, ok := strings.CutPrefix(line, "data: ")
			if err != nil || !ok || json.Unmarshal([]byte(data), &doc) != nil || doc.Result.StatusUpdate == nil {
				t.Errorf("first line %q (err %v), want an SSE event with a JSON-RPC status update", line, err)
			}
		}},
		{EndlessEvents, func(t *testing.T, p *HostilePeer) {
			resp, cancel, err := get(t, p, 5*time.Second)
			defer cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			if n := strings.Count(string(b), "data: "); len(b) != 1<<20 || n < 1000 {
				t.Errorf("read %d bytes with %d events, want 1 MiB of events", len(b), n)
			}
		}},
		{GiantEvent, func(t *testing.T, p *HostilePeer) {
			resp, cancel, err := get(t, p, 5*time.Second)
			defer cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			if !strings.HasPrefix(string(b), "data: ") || strings.Contains(string(b), "\n") || len(b) != 1<<20 {
				t.Errorf("read %d bytes, want 1 MiB of one data line", len(b))
			}
		}},
		{HangingGRPC, func(t *testing.T, p *HostilePeer) {
			conn, err := grpc.NewClient("passthrough:///"+p.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			err = conn.Invoke(ctx, "/any.Service/Method", &emptypb.Empty{}, &emptypb.Empty{})
			if status.Code(err) != codes.DeadlineExceeded {
				t.Errorf("Invoke() = %v, want DeadlineExceeded (the call is accepted and never answered)", err)
			}
		}},
	}
	for _, tc := range tests {
		before := goleak.IgnoreCurrent()
		p, err := StartHostile(tc.kind)
		if err != nil {
			t.Fatal(err)
		}
		tc.check(t, p)
		if err := p.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
		goleak.VerifyNone(t, before)
	}
}
