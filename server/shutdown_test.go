package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// badPeer opens one connection to addr that misbehaves until the test ends: idle (sends
// nothing), half-open (a partial request, then its write side closed) or slow (a
// request trickled one byte at a time).
func badPeer(t *testing.T, addr, kind, request string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	switch kind {
	case "idle":
	case "half-open":
		if _, err := io.WriteString(c, request[:len(request)/2]); err != nil {
			t.Fatal(err)
		}
		_ = c.(*net.TCPConn).CloseWrite()
	case "slow":
		go func() {
			for i := 0; i < len(request); i++ {
				if _, err := c.Write([]byte{request[i]}); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
}

const (
	h2Preface   = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	httpRequest = "POST " + PathJSONRPC + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2000\r\n\r\n{\"jsonrpc\":\"2.0\","
)

// TestShutdownIsBoundedWithBadPeers: idle, half-open and slow connections on every
// listener cannot hold Shutdown past the shutdown timeout. grpc-go alone waits up to
// 120 s for the HTTP/2 preface of a connection that never sends it.
func TestShutdownIsBoundedWithBadPeers(t *testing.T) {
	const timeout = time.Second
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithGRPCOnHTTP(), WithShutdownTimeout(timeout))
	for _, kind := range []string{"idle", "half-open", "slow"} {
		badPeer(t, srv.GRPCAddr(), kind, h2Preface)
		badPeer(t, srv.HTTPAddr(), kind, httpRequest)
		badPeer(t, srv.HTTPAddr(), kind, h2Preface) // gRPC on the HTTP port
	}
	time.Sleep(100 * time.Millisecond) // let the server accept them
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(context.Background()) }()
	// Generous bound against a loaded machine; the failure this guards against is 120 s.
	select {
	case <-done:
		t.Logf("Shutdown with 9 bad peers returned after %v (shutdown timeout %v)", time.Since(start).Round(time.Millisecond), timeout)
	case <-time.After(timeout + 10*time.Second):
		t.Fatalf("Shutdown still running %v after it began (shutdown timeout %v)", time.Since(start), timeout)
	}
}

// loadResult counts what one binding's load generator saw across Shutdown.
type loadResult struct {
	answered, refused, cut atomic.Int64
	cuts                   sync.Map // error text of the cut requests
}

func (r *loadResult) String() string {
	var cuts []string
	r.cuts.Range(func(k, _ any) bool { cuts = append(cuts, k.(string)); return true })
	return fmt.Sprintf("answered %d, refused %d, cut %d %v", r.answered.Load(), r.refused.Load(), r.cut.Load(), cuts)
}

// httpLoad sends body to url from workers keep-alive clients until each is refused
// (or stop), classifying every failure by whether the request had been written.
func httpLoad(url, body string, workers int, res *loadResult, warm *sync.WaitGroup, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		warm.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{MaxIdleConnsPerHost: 1}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr, Timeout: 20 * time.Second}
			warmed := false
			for i := 0; ; i++ {
				select {
				case <-stop:
					if !warmed {
						warm.Done()
					}
					return
				default:
				}
				var written atomic.Bool
				trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { written.Store(true) }}
				req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
					http.MethodPost, url, strings.NewReader(strings.ReplaceAll(body, "MSGID", fmt.Sprint("m-", time.Now().UnixNano(), "-", i))))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("A2A-Version", "1.0")
				resp, err := c.Do(req)
				refused503 := false
				if err == nil {
					b, rerr := io.ReadAll(resp.Body)
					resp.Body.Close()
					switch {
					case rerr != nil:
						err = rerr
					case resp.StatusCode == http.StatusServiceUnavailable && resp.Close:
						refused503 = true // refused, not processed, connection closed
						err = errors.New("503")
					case resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "TASK_STATE_COMPLETED"):
						err = fmt.Errorf("answer %d %.100s", resp.StatusCode, b)
					}
				}
				switch {
				case err == nil:
					res.answered.Add(1)
					if !warmed && i >= 2 {
						warmed = true
						warm.Done()
					}
					continue
				case refused503 || !written.Load() || errors.Is(err, syscall.ECONNREFUSED):
					res.refused.Add(1)
				default:
					res.cut.Add(1)
					res.cuts.Store(err.Error(), true)
				}
				if !warmed {
					warm.Done()
				}
				return
			}
		}()
	}
	return &wg
}

// TestShutdownUnderKeepAliveLoad: at Shutdown, requests in flight on every binding are
// answered and new ones are refused cleanly (HTTP 503 with Connection: close, connection
// refused, gRPC UNAVAILABLE); none is cut after being written.
func TestShutdownUnderKeepAliveLoad(t *testing.T) {
	srv := startServer(t, WithGRPCAddr("127.0.0.1:0"), WithShutdownTimeout(5*time.Second))
	stop := make(chan struct{})
	deadline := time.AfterFunc(30*time.Second, func() { close(stop) })
	defer deadline.Stop()
	var warm sync.WaitGroup
	rpc, rest, grpcRes := &loadResult{}, &loadResult{}, &loadResult{}
	rpcBody := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"MSGID","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	restBody := `{"message":{"messageId":"MSGID","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
	wgs := []*sync.WaitGroup{
		httpLoad(srv.LocalBaseURL()+PathJSONRPC, rpcBody, 6, rpc, &warm, stop),
		httpLoad(srv.LocalBaseURL()+PathREST+"/message:send", restBody, 6, rest, &warm, stop),
	}
	// gRPC: one connection, several callers.
	conn := grpcConn(t, srv.GRPCAddr())
	gc := a2apb.NewA2AServiceClient(conn)
	var gwg sync.WaitGroup
	for w := range 4 {
		gwg.Add(1)
		warm.Add(1)
		go func() {
			defer gwg.Done()
			warmed := false
			defer func() {
				if !warmed {
					warm.Done()
				}
			}()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "a2a-version", "1.0"), 20*time.Second)
				_, err := gc.SendMessage(ctx, &a2apb.SendMessageRequest{Message: &a2apb.Message{
					MessageId: fmt.Sprint("g-", w, "-", i), Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hi"}}}}})
				cancel()
				switch st := status.Convert(err); {
				case err == nil:
					grpcRes.answered.Add(1)
					if !warmed && i >= 2 {
						warmed = true
						warm.Done()
					}
					continue
				case st.Code() == codes.Unavailable:
					grpcRes.refused.Add(1)
				default:
					grpcRes.cut.Add(1)
					grpcRes.cuts.Store(st.String(), true)
				}
				return
			}
		}()
	}
	wgs = append(wgs, &gwg)
	warm.Wait()
	before := rpc.answered.Load() + rest.answered.Load() + grpcRes.answered.Load()
	start := time.Now()
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown() = %v", err)
	}
	took := time.Since(start)
	for _, wg := range wgs {
		wg.Wait()
	}
	t.Logf("Shutdown under load took %v; %d answered before it began; JSON-RPC: %s; HTTP+JSON: %s; gRPC: %s",
		took.Round(time.Millisecond), before, rpc, rest, grpcRes)
	for name, r := range map[string]*loadResult{"JSON-RPC": rpc, "HTTP+JSON": rest, "gRPC": grpcRes} {
		if r.cut.Load() > 0 {
			t.Errorf("%s: %d requests cut after being written: %s", name, r.cut.Load(), r)
		}
		if r.refused.Load() == 0 {
			t.Errorf("%s: no request was refused: the load did not outlive Shutdown (%s)", name, r)
		}
	}
}

// TestNoRequestResetAtShutdown: 16 keep-alive HTTP/1.1 clients send one request after
// another and reconnect at once after every answer that closes the connection, through
// Shutdown, over several rounds. No request is fully written and then answered by a
// reset or a closed connection: each gets an answer (200 before Shutdown, then 200 or 503
// with Connection: close), or its connection is refused before anything is written.
func TestNoRequestResetAtShutdown(t *testing.T) {
	const clients, rounds = 16, 4
	for round := range rounds {
		srv := startServer(t, WithShutdownTimeout(5*time.Second))
		addr := strings.TrimPrefix(srv.LocalBaseURL(), "http://")
		body := `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"none"}}`
		req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: %d\r\n\r\n%s",
			PathJSONRPC, addr, len(body), body)
		var ok, refused503, written, resets atomic.Int64
		var firstReset atomic.Value
		var wg, warm sync.WaitGroup
		for range clients {
			wg.Add(1)
			warm.Add(1)
			go func() {
				defer wg.Done()
				warmed := false
				defer func() {
					if !warmed {
						warm.Done()
					}
				}()
				for {
					conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
					if err != nil {
						return // refused (the listener is closed) or timed out: nothing written
					}
					br := bufio.NewReader(conn)
					for {
						if _, err := io.WriteString(conn, req); err != nil {
							break // not fully written
						}
						written.Add(1)
						_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
						resp, err := http.ReadResponse(br, nil)
						if err != nil {
							resets.Add(1)
							firstReset.CompareAndSwap(nil, err.Error())
							break
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						switch resp.StatusCode {
						case http.StatusOK:
							ok.Add(1)
							if !warmed {
								warmed = true
								warm.Done()
							}
						case http.StatusServiceUnavailable:
							refused503.Add(1)
						}
						if resp.Close {
							break // reconnect at once
						}
					}
					conn.Close()
				}
			}()
		}
		warm.Wait()
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("round %d: Shutdown() = %v", round, err)
		}
		wg.Wait()
		t.Logf("round %d: %d requests written, %d answered 200, %d answered 503, %d reset", round, written.Load(), ok.Load(), refused503.Load(), resets.Load())
		if resets.Load() > 0 {
			t.Errorf("round %d: %d requests fully written and then reset (first: %v)", round, resets.Load(), firstReset.Load())
		}
		if refused503.Load() == 0 {
			t.Errorf("round %d: no request was refused with 503: the load did not outlive the start of Shutdown", round)
		}
	}
}
