package card_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2abind/a2abind/card"
)

// TestLoadTriesTheLegacyWellKnownPath: an agent older than A2A 0.3 serves its card at
// /.well-known/agent.json; Load of its base URL finds it there after a 404 at
// /.well-known/agent-card.json, and says it tried both when neither answers.
func TestLoadTriesTheLegacyWellKnownPath(t *testing.T) {
	var paths []string
	legacy := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if legacy && r.URL.Path == card.LegacyWellKnownPath {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"name": "old", "url": "http://127.0.0.1:1/rpc", "protocolVersion": "0.2.5"}`))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)

	c, err := card.Load(t.Context(), srv.URL)
	if err != nil || c.Name != "old" || c.Location != srv.URL+card.LegacyWellKnownPath {
		t.Fatalf("Load(base) = %+v, %v; want the card from %s", c, err, card.LegacyWellKnownPath)
	}
	if want := []string{card.WellKnownPath, card.LegacyWellKnownPath}; strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("requested %v, want %v", paths, want)
	}

	legacy, paths = false, nil
	_, err = card.Load(t.Context(), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "also tried "+srv.URL+card.LegacyWellKnownPath) {
		t.Errorf("Load(base) with no card = %v, want the 404 and that agent.json was tried", err)
	}

	// A card URL, or a base URL with a path, is not redirected to the legacy path.
	paths = nil
	if _, err := card.Load(t.Context(), srv.URL+"/cards/x.json"); err == nil || len(paths) != 1 {
		t.Errorf("Load(card URL) = %v after %v, want one request and a 404", err, paths)
	}
}
