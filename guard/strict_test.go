package guard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// TestStrictRefusesTheSeedAgents: both seed agents (v0.3 and v1.0 card shapes) lie about
// gRPC; strict mode withholds their cards (503 with Retry-After, /readyz not ready) and
// says which interface is not served and why.
func TestStrictRefusesTheSeedAgents(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		agent []lab.Option
	}{{"v0.3 card", lab.Seed()}, {"v1.0 card", lab.SeedV1()}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := labtest.Start(t, tt.agent...)
			g := startGuard(t, a.BaseURL)
			s := g.State()
			if s.Published || s.Round != 1 {
				t.Fatalf("state = published %v round %d, want withheld after round 1", s.Published, s.Round)
			}
			got := get(t, cardOf(g))
			if got.status != http.StatusServiceUnavailable || got.header.Get("Retry-After") == "" {
				t.Fatalf("card = %d (Retry-After %q), want 503 with Retry-After", got.status, got.header.Get("Retry-After"))
			}
			if strings.Contains(got.body, "supportedInterfaces") || strings.Contains(got.body, "preferredTransport") {
				t.Errorf("the withheld answer carries the card: %s", got.body)
			}
			if r := get(t, g.URL()+"/readyz"); r.status != http.StatusServiceUnavailable {
				t.Errorf("/readyz = %d, want 503", r.status)
			}
			if r := get(t, g.URL()+"/healthz"); r.status != http.StatusOK {
				t.Errorf("/healthz = %d, want 200", r.status)
			}
			codes := map[string]bool{}
			for _, f := range s.Findings {
				codes[f.Code] = true
				if f.Interface == "" || f.Message == "" {
					t.Errorf("finding %+v names no interface or cause", f)
				}
			}
			if !codes[card.CodePreferredNotServed] || !codes[card.CodeInterfaceNotServed] {
				t.Errorf("findings = %+v, want preferred-not-served and interface-not-served", s.Findings)
			}
			// The legacy card path and other spellings never reach the upstream's card.
			for _, p := range []string{"/.well-known/agent.json", "/.WELL-KNOWN/agent-card.json", "//.well-known/./agent-card.json", card.WellKnownPath + "/"} {
				if r := get(t, g.URL()+p); r.status != http.StatusServiceUnavailable {
					t.Errorf("GET %s = %d, want the withheld card (503)", p, r.status)
				}
			}
		})
	}
}

// TestStrictServesTheHealthyCardUnchanged: a consistent card is served byte for byte,
// with a strong ETag, Last-Modified and Cache-Control; If-None-Match and
// If-Modified-Since give 304.
func TestStrictServesTheHealthyCardUnchanged(t *testing.T) {
	t.Parallel()
	a := labtest.Start(t, lab.Healthy()...)
	g := startGuard(t, a.BaseURL)
	got := get(t, cardOf(g))
	if got.status != http.StatusOK {
		t.Fatalf("card = %d %s, want 200", got.status, got.body)
	}
	if got.body != string(a.CardJSON) {
		t.Errorf("card served = %s, want the upstream's bytes %s", got.body, a.CardJSON)
	}
	etag, lm := got.header.Get("ETag"), got.header.Get("Last-Modified")
	if !strings.HasPrefix(etag, `"`) || lm == "" || !strings.HasPrefix(got.header.Get("Cache-Control"), "public, max-age=") {
		t.Errorf("headers ETag %q Last-Modified %q Cache-Control %q, want a strong ETag, Last-Modified, public max-age",
			etag, lm, got.header.Get("Cache-Control"))
	}
	if got.header.Get("A2abind-Card-Normalized") != "" {
		t.Errorf("strict mode marked the card normalized")
	}
	if r := get(t, cardOf(g), "If-None-Match", etag); r.status != http.StatusNotModified {
		t.Errorf("If-None-Match = %d, want 304", r.status)
	}
	if r := get(t, cardOf(g), "If-Modified-Since", lm); r.status != http.StatusNotModified {
		t.Errorf("If-Modified-Since = %d, want 304", r.status)
	}
	if r := get(t, g.URL()+"/readyz"); r.status != http.StatusOK {
		t.Errorf("/readyz = %d, want 200", r.status)
	}
	for _, m := range []struct {
		method string
		want   int
	}{{http.MethodHead, http.StatusOK}, {http.MethodOptions, http.StatusNoContent}, {http.MethodPost, http.StatusMethodNotAllowed}} {
		req, _ := http.NewRequestWithContext(t.Context(), m.method, cardOf(g), nil)
		req.Close = true
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != m.want || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s card = %d (CORS %q), want %d with CORS", m.method, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), m.want)
		}
	}
}
