package lab_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

var grpcInsecure = a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials()))

func TestHealthyServesEveryDeclaredInterface(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	a := labtest.Start(t, lab.Healthy()...)
	c, err := card.Fetch(ctx, a.BaseURL)
	if err != nil {
		t.Fatalf("card.Fetch() error = %v", err)
	}
	if len(c.Interfaces) != 3 {
		t.Fatalf("card declares %d interfaces, want 3", len(c.Interfaces))
	}
	for _, i := range c.Interfaces {
		got, err := labtest.SendText(ctx, &a2a.AgentInterface{URL: i.URL, ProtocolBinding: i.Binding, ProtocolVersion: a2a.ProtocolVersion(i.ProtocolVersion)}, grpcInsecure)
		if err != nil || got != "ping" {
			t.Errorf("SendMessage via %s = %q, %v; want echo", i, got, err)
		}
	}
}

func TestSeedServesOnlyV03JSONRPCAtURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	a := labtest.Start(t, lab.Seed()...)
	c, err := card.Fetch(ctx, a.BaseURL)
	if err != nil {
		t.Fatalf("card.Fetch() error = %v", err)
	}
	if c.Shape != card.ShapeV03 || len(c.Interfaces) != 3 || c.Interfaces[0].Binding != lab.GRPC || !c.Interfaces[0].Preferred {
		t.Fatalf("seed card = %+v, want v0.3 with lab.GRPC preferred at url and 3 interfaces", c)
	}
	v03 := a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{})
	if got, err := labtest.SendText(ctx, &a2a.AgentInterface{URL: a.BaseURL, ProtocolBinding: lab.JSONRPC, ProtocolVersion: "0.3"}, v03); err != nil || got != "ping" {
		t.Errorf("v0.3 JSON-RPC at url = %q, %v; want echo", got, err)
	}
	_, err = labtest.SendText(ctx, &a2a.AgentInterface{URL: a.GRPCAddr, ProtocolBinding: lab.GRPC, ProtocolVersion: "1.0"}, grpcInsecure)
	if !errors.Is(err, a2a.ErrMethodNotFound) {
		t.Errorf("gRPC at the second port error = %v, want UNIMPLEMENTED (method not found)", err)
	}
	_, err = labtest.SendText(ctx, &a2a.AgentInterface{URL: a.HTTPAddr, ProtocolBinding: lab.GRPC, ProtocolVersion: "1.0"}, grpcInsecure)
	if err == nil {
		t.Errorf("gRPC at the HTTP port succeeded, want a failure")
	}
}

func TestAuthAndTLS(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	a := labtest.Start(t, append(lab.Healthy(), lab.WithAuth("s3cret"), lab.WithTLS())...)
	if !strings.HasPrefix(a.BaseURL, "https://") {
		t.Fatalf("BaseURL = %q, want https", a.BaseURL)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.URL(lab.PathJSONRPC), strings.NewReader(`{}`))
	resp, err := a.HTTPClient().Do(req)
	if err != nil {
		t.Fatalf("POST over TLS error = %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("no token: status %d, WWW-Authenticate %q; want 401 with a challenge", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if _, err := http.Get(a.BaseURL + card.WellKnownPath); err == nil {
		t.Errorf("GET with the system roots succeeded, want an untrusted-certificate error")
	}
}

func TestRawListeners(t *testing.T) {
	addr, err := lab.ClosedAddr()
	if err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("dial %s succeeded, want refused", addr)
	}
	g, err := lab.Listen(lab.Garbage)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	c, err := net.DialTimeout("tcp", g.Addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	_, _ = c.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
	got, _ := io.ReadAll(c)
	c.Close()
	if string(got) != string(lab.GarbageBytes) {
		t.Errorf("garbage listener wrote %q, want %q", got, lab.GarbageBytes)
	}
	s, err := lab.Listen(lab.Silent)
	if err != nil {
		t.Fatal(err)
	}
	c, err = net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = c.Write([]byte("hello"))
	if n, err := c.Read(make([]byte, 1)); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("silent listener read = %d, %v; want a timeout", n, err)
	}
	c.Close()
	if err := s.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
}

func TestUnionCardIsReadAsUnion(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	a := labtest.Start(t, lab.Union()...)
	c, err := card.Fetch(ctx, a.BaseURL)
	if err != nil {
		t.Fatalf("card.Fetch() error = %v", err)
	}
	if c.Shape != card.ShapeUnion || len(c.Interfaces) != 6 {
		t.Errorf("union card: shape %s with %d interfaces, want union with 6", c.Shape, len(c.Interfaces))
	}
}
