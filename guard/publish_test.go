package guard_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/guard"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/server"
	"github.com/a2abind/a2abind/signature"
)

// TestServeAndGuardPublishAlike: serve and guard publish through one home (card.ServeCard,
// signature.CardSigner), so their card endpoints and JWKS endpoints answer alike: HEAD and
// 304 with the same validators, 405 naming GET and HEAD for a POST on the JWKS (it was
// answered by the guard, with CORS *), the JWKS with CORS for any origin.
func TestServeAndGuardPublishAlike(t *testing.T) {
	t.Parallel()
	key, err := signature.GenerateSigningKey(signature.KeyEd25519, 0)
	if err != nil {
		t.Fatal(err)
	}
	const jku = "https://agent.example.com/.well-known/jwks.json"
	srv, err := server.New(lab.Echo{}, server.WithHTTPAddr("127.0.0.1:0"), server.WithCardSigning(key, jku),
		server.WithAgentInfo("alike", "serve and guard publish alike", "1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	seed := labtest.Start(t, lab.Seed()...)
	g := startGuard(t, seed.BaseURL, guard.WithNormalize(), guard.WithCardSigning(key, jku))
	for name, base := range map[string]string{"serve": "http://" + srv.HTTPAddr(), "guard": g.URL()} {
		t.Run(name, func(t *testing.T) {
			c := do(t, http.MethodGet, base+card.WellKnownPath)
			if c.status != http.StatusOK || c.header.Get("ETag") == "" || c.header.Get("Last-Modified") == "" ||
				c.header.Get("Cache-Control") == "" || c.header.Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("card = %d %v", c.status, c.header)
			}
			if h := do(t, http.MethodHead, base+card.WellKnownPath); h.status != http.StatusOK || h.body != "" || h.header.Get("ETag") != c.header.Get("ETag") {
				t.Errorf("HEAD = %d %q %v", h.status, h.body, h.header)
			}
			if r := do(t, http.MethodGet, base+card.WellKnownPath, "If-None-Match", c.header.Get("ETag")); r.status != http.StatusNotModified {
				t.Errorf("If-None-Match = %d, want 304", r.status)
			}
			if r := do(t, http.MethodGet, base+card.WellKnownPath, "If-Modified-Since", c.header.Get("Last-Modified")); r.status != http.StatusNotModified {
				t.Errorf("If-Modified-Since = %d, want 304", r.status)
			}
			j := do(t, http.MethodGet, base+"/.well-known/jwks.json")
			if j.status != http.StatusOK || j.header.Get("Content-Type") != "application/jwk-set+json" || j.header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("JWKS = %d %v", j.status, j.header)
			}
			if _, err := signature.ParseKeySet([]byte(j.body), name); err != nil {
				t.Errorf("JWKS body: %v", err)
			}
			for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
				if r := do(t, m, base+"/.well-known/jwks.json"); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD" {
					t.Errorf("%s on the JWKS = %d (Allow %q), want 405 naming GET, HEAD", m, r.status, r.header.Get("Allow"))
				}
			}
		})
	}
}
