package card_test

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
)

// TestLoadWithConn: card.Load takes the one connection configuration: its roots and
// insecure flag decide TLS, its headers go on the fetch, and its dial policy refuses
// at connect time what the default client would have dialled.
func TestLoadWithConn(t *testing.T) {
	t.Parallel()
	seed := readCard(t, "seed-v03.json")
	var gotAuth atomic.Value
	gotAuth.Store("")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(seed)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if _, err := card.Load(ctx, srv.URL, card.WithConn(addr.Conn{})); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("Load with the system roots: %v, want a certificate error", err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	conn := addr.Conn{RootCAs: roots}
	conn.AddHeader("Authorization", "Bearer s3cret")
	if _, err := card.Load(ctx, srv.URL, card.WithConn(conn)); err != nil || gotAuth.Load() != "Bearer s3cret" {
		t.Errorf("Load with RootCAs and a header: %v, Authorization %q", err, gotAuth.Load())
	}
	if _, err := card.Load(ctx, srv.URL, card.WithConn(addr.Conn{Insecure: true})); err != nil {
		t.Errorf("Load with Insecure: %v", err)
	}

	// 0.0.0.0 reaches loopback on Linux: the default client fetches it, the dial
	// policy of a Conn refuses it at connect time, unless allowed.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(seed)
	}))
	t.Cleanup(plain.Close)
	wildcard := strings.Replace(plain.URL, "127.0.0.1", "0.0.0.0", 1)
	if _, err := card.Load(ctx, wildcard, card.WithConn(addr.Conn{})); !errors.Is(err, addr.ErrRefusedAddress) {
		t.Errorf("Load(%s) with the default dial policy: %v, want ErrRefusedAddress", wildcard, err)
	}
	allow, err := addr.NewDialPolicy("0.0.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := card.Load(ctx, wildcard, card.WithConn(addr.Conn{Dial: allow})); err != nil {
		t.Errorf("Load(%s) with 0.0.0.0 allowed: %v", wildcard, err)
	}
}

// TestConnDefaults: the zero Conn is the default configuration.
func TestConnDefaults(t *testing.T) {
	t.Parallel()
	var c addr.Conn
	if c.Interfaces() != addr.DefaultMaxInterfaces {
		t.Errorf("zero Conn bound = %d, want %d", c.Interfaces(), addr.DefaultMaxInterfaces)
	}
	c.MaxInterfaces = 3
	if c.Interfaces() != 3 {
		t.Errorf("bound = %d, want 3", c.Interfaces())
	}
	if cfg := c.TLSConfig("h", "h2"); cfg.InsecureSkipVerify || cfg.ServerName != "h" || cfg.NextProtos[0] != "h2" {
		t.Errorf("TLSConfig = %+v", cfg)
	}
}
