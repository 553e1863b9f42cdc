package delegate

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/addr"
	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/wire"
)

// credentialHeaders are what the tests send with -H and look for at the other origin.
var credentialHeaders = []string{"Authorization", "X-Api-Key"}

func withCredentials() []Option {
	return []Option{WithConn(addr.Conn{Header: http.Header{"Authorization": {"Bearer T"}, "X-Api-Key": {"K"}}})}
}

// carried counts the requests at o that carried any of the credential headers.
func carried(o *labtest.Origin) int {
	n := 0
	for _, h := range credentialHeaders {
		n += o.Carrying(h)
	}
	return n
}

// otherOrigins are the second origins of the redirect tests: another host on loopback,
// and another port of the same host.
var otherOrigins = []struct{ name, host string }{
	{"another host", "127.0.0.2"},
	{"another port of the same host", "127.0.0.1"},
}

// cardAt serves, at the well-known path, a v1.0 card whose JSON-RPC interface is on the
// origin itself (*self is filled in once the origin started), and proxies the rest to agent.
func cardAt(t *testing.T, self **labtest.Origin, agent *lab.Agent) http.Handler {
	proxy := labtest.Proxy(t, agent.BaseURL)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == card.WellKnownPath {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(lab.V1Card("b", lab.Decl{URL: (*self).URL + lab.PathJSONRPC, Binding: lab.JSONRPC, Version: card.V1}))
			return
		}
		proxy.ServeHTTP(w, r)
	})
}

func sendPing(t *testing.T, c *Client) error {
	t.Helper()
	_, err := c.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))})
	return err
}

// Hole 1(a): the card URL answers 307 to a card on another origin whose interfaces are
// there. The credentials belong to the origin the user named: the other origin gets
// the message (its card says so) but neither the token nor the API key, on the card
// fetch or on the call.
func TestCardRedirectKeepsCredentialsAtTheNamedOrigin(t *testing.T) {
	for _, o := range otherOrigins {
		t.Run(o.name, func(t *testing.T) {
			counter := &lab.Counter{}
			agent := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithExecutor(counter))
			var b *labtest.Origin
			b = labtest.StartOrigin(t, o.host, cardAt(t, &b, agent))
			a := labtest.StartOrigin(t, "127.0.0.1", labtest.RedirectTo(b.URL, http.StatusTemporaryRedirect))

			c, err := New(t.Context(), a.URL, withCredentials()...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := sendPing(t, c); err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			if n := counter.Executions(); n != 1 {
				t.Fatalf("the agent behind %s ran %d messages, want 1 (the test must reach it)", b.URL, n)
			}
			if n := carried(b); n != 0 {
				t.Errorf("%d of %d requests at the other origin %s carried the user's credentials, want 0", n, len(b.Requests()), b.URL)
			}
			if n := a.Carrying("X-Api-Key"); n == 0 {
				t.Errorf("the named origin %s never got the user's headers (the card fetch must send them there)", a.URL)
			}
		})
	}
}

// Hole 1(b): an interface on the card's own origin answers 302/303/307/308 to another
// origin. The call does not follow it: nothing (no message, no credential) reaches the
// Location, the attempt is not_found and names where the redirect pointed. Unary and
// streaming.
func TestCallRedirectIsNotFollowed(t *testing.T) {
	for _, code := range []int{http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, o := range otherOrigins {
			t.Run(fmt.Sprintf("%d to %s", code, o.name), func(t *testing.T) {
				counter := &lab.Counter{}
				agent := labtest.Start(t, lab.WithJSONRPC(card.V1, lab.PathJSONRPC), lab.WithExecutor(counter))
				b := labtest.StartOrigin(t, o.host, labtest.Proxy(t, agent.BaseURL))
				var a *labtest.Origin
				redirect := labtest.RedirectTo(b.URL, code)
				a = labtest.StartOrigin(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == card.WellKnownPath {
						cardAt(t, &a, agent).ServeHTTP(w, r)
						return
					}
					redirect.ServeHTTP(w, r)
				}))
				c, err := New(t.Context(), a.URL, withCredentials()...)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				var tr Trace
				ctx := WithTrace(t.Context(), &tr)
				_, err = c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))})
				if err == nil {
					t.Fatal("SendMessage succeeded through a redirect")
				}
				for ev, serr := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))}) {
					if serr == nil {
						t.Fatalf("SendStreamingMessage got an event through a redirect: %v", ev)
					}
				}
				if n := len(b.Requests()); n != 0 {
					t.Errorf("%d requests reached the redirect's Location %s, want 0", n, b.URL)
				}
				if n := counter.Executions(); n != 0 {
					t.Errorf("the agent ran %d messages, want 0", n)
				}
				attempts := tr.Attempts()
				if len(attempts) != 2 {
					t.Fatalf("attempts = %v, want one per call", attempts)
				}
				for _, at := range attempts {
					if at.Outcome != wire.NotFound || !strings.Contains(at.Detail, b.URL+lab.PathJSONRPC) || !strings.Contains(at.Detail, "not followed") {
						t.Errorf("attempt = %s %q, want not_found naming %s and that it was not followed", at.Outcome, at.Detail, b.URL+lab.PathJSONRPC)
					}
				}
			})
		}
	}
}

// Hole 4 (amplification): a ~1 MiB card declaring 13,500 gRPC interfaces (a port scan
// of localhost) costs at most addr.DefaultMaxInterfaces attempts and transports, and bounded
// memory. The ports were closed when the card was made, so each attempt is refused.
func TestHugeCardIsBounded(t *testing.T) {
	c := hugeCard(t, 13500)
	var (
		client *Client
		tr     Trace
		err    error
	)
	alloc := allocated(func() {
		client, err = NewFromCard(c, WithPlaintextGRPC(), WithAttemptTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.SendMessage(WithTrace(t.Context(), &tr), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping"))})
	})
	defer client.Close()
	t.Logf("NewFromCard + SendMessage on a %d-interface card: %d attempts, %.1f MiB allocated", len(c.Interfaces), len(tr.Attempts()), float64(alloc)/(1<<20))
	if n := len(client.Candidates()); n != addr.DefaultMaxInterfaces {
		t.Fatalf("%d candidates, want the bound %d", n, addr.DefaultMaxInterfaces)
	}
	if alloc > 128<<20 {
		t.Errorf("%d MiB allocated, want under 128 MiB (it was 659 MB before the bound)", alloc>>20)
	}
	if err == nil {
		// Another process on this machine may have bound one of the ports since: the
		// bound is what this test checks, not the outcome.
		t.Logf("SendMessage succeeded after %d attempts", len(tr.Attempts()))
	}
	if n := len(tr.Attempts()); n > addr.DefaultMaxInterfaces {
		t.Errorf("%d attempts, want at most %d", n, addr.DefaultMaxInterfaces)
	}
	client.mu.Lock()
	transports := len(client.transports)
	client.mu.Unlock()
	if transports > addr.DefaultMaxInterfaces {
		t.Errorf("%d transports kept, want at most %d", transports, addr.DefaultMaxInterfaces)
	}
}

// hugeCard is a card of n gRPC interfaces, about 1 MiB on the wire: the first 64 on
// closed ports (127.0.0.x at a port just closed), the rest on ports 1..n of 127.0.0.1,
// a port scan of localhost that the bound must keep from ever being dialled.
func hugeCard(tb testing.TB, n int) *card.Card {
	tb.Helper()
	closed, err := lab.ClosedAddr()
	if err != nil {
		tb.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(closed)
	decls := make([]lab.Decl, 0, n)
	for i := range n {
		u := fmt.Sprintf("127.0.0.1:%d", 1+i%65535)
		if i < 64 {
			u = fmt.Sprintf("127.0.0.%d:%s", 1+i, port)
		}
		decls = append(decls, lab.Decl{URL: u, Binding: lab.GRPC, Version: card.V1})
	}
	b, err := json.Marshal(lab.V1Card("huge", decls...))
	if err != nil {
		tb.Fatal(err)
	}
	if n >= 13500 && len(b) < 900<<10 {
		tb.Fatalf("the card is %d bytes, want about 1 MiB", len(b))
	}
	c, err := card.Parse(b)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
