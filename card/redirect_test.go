package card_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
)

// Hole 1(c): the card fetch (lint, probe, send) sends the user's -H headers to the URL
// the user named, and drops them on a redirect to another origin: another host, another
// port of the same host, or the same host and port without TLS. The card is still
// obtained, and records the origin the user named.
func TestFetchDropsHeadersOnRedirectToAnotherOrigin(t *testing.T) {
	doc, err := json.Marshal(lab.V1Card("b", lab.Decl{URL: "http://127.0.0.2:1/a2a", Binding: lab.JSONRPC, Version: card.V1}))
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.2", "127.0.0.1"} {
		t.Run("to "+host, func(t *testing.T) {
			b := labtest.StartOrigin(t, host, serveBytes(doc, "application/json"))
			a := labtest.StartOrigin(t, "127.0.0.1", labtest.RedirectTo(b.URL, http.StatusTemporaryRedirect))
			c, err := card.Load(t.Context(), a.URL, card.WithHeader("Authorization", "Bearer T"), card.WithHeader("X-Api-Key", "K"))
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{"Authorization", "X-Api-Key"} {
				if n := b.Carrying(h); n != 0 {
					t.Errorf("the redirect target %s got %s on %d requests, want 0", b.URL, h, n)
				}
				if n := a.Carrying(h); n != 1 {
					t.Errorf("the named origin %s got %s on %d requests, want 1", a.URL, h, n)
				}
			}
			if got, want := c.Origin, addr.OriginOf(a.URL); got != want {
				t.Errorf("Card.Origin = %v, want the named %v (not %s, where the redirect went)", got, want, c.Location)
			}
		})
	}
}

// A redirect that stays on the named origin keeps the headers (an agent moving its card
// to another path is not another party).
func TestFetchKeepsHeadersOnSameOriginRedirect(t *testing.T) {
	doc, err := json.Marshal(lab.V1Card("a", lab.Decl{URL: "http://127.0.0.1:1/a2a", Binding: lab.JSONRPC, Version: card.V1}))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(card.WellKnownPath, http.RedirectHandler("/cards/a.json", http.StatusFound))
	mux.Handle("/cards/a.json", serveBytes(doc, "application/json"))
	a := labtest.StartOrigin(t, "127.0.0.1", mux)
	if _, err := card.Load(t.Context(), a.URL, card.WithHeader("X-Api-Key", "K")); err != nil {
		t.Fatal(err)
	}
	if n := a.Carrying("X-Api-Key"); n != 2 {
		t.Errorf("X-Api-Key reached the origin on %d of %d requests, want both", n, len(a.Requests()))
	}
}
