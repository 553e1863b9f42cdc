package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/a2abind/a2abind/card"
	"github.com/a2abind/a2abind/delegate"
	"github.com/a2abind/a2abind/lab"
	"github.com/a2abind/a2abind/lab/labtest"
	"github.com/a2abind/a2abind/probe"
	"github.com/a2abind/a2abind/wire"
)

// agreementPeer is an agent and the card that probe and send both read.
type agreementPeer struct {
	name string
	card *card.Card
}

// a2aGoModes are the ways `a2a serve --echo` serves: each transport in each protocol
// version. Its own card stamps protocolVersion 1.0 whatever --protocol says, so the
// card probe and send read declares what each mode serves.
var a2aGoModes = []struct {
	transport string
	binding   a2a.TransportProtocol
	version   string
}{
	{"jsonrpc", a2a.TransportProtocolJSONRPC, card.V1},
	{"rest", a2a.TransportProtocolHTTPJSON, card.V1},
	{"grpc", a2a.TransportProtocolGRPC, card.V1},
	{"jsonrpc", a2a.TransportProtocolJSONRPC, card.V03},
	{"rest", a2a.TransportProtocolHTTPJSON, card.V03},
	{"grpc", a2a.TransportProtocolGRPC, card.V03},
}

// agreementPeers starts the peers: the lab agents, the @a2a-js/sdk 1.3.0 agent in every
// card mode, the @a2a-js/sdk 0.3.14 agent, and a2a-go's `a2a serve --echo` in each mode
// of both releases (a2aGoReleases: v2.3.1 serves v0.3 HTTP+JSON at {url} in its own
// snake_case dialect, v2.4.0 under {url}/v1).
func agreementPeers(t *testing.T) []agreementPeer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	load := func(name, target string) agreementPeer {
		c, err := card.Load(ctx, target)
		if err != nil {
			t.Fatalf("%s: card.Load(%s) error = %v", name, target, err)
		}
		return agreementPeer{name, c}
	}
	var peers []agreementPeer
	for name, opts := range map[string][]lab.Option{
		"lab healthy": lab.Healthy(), "lab healthy v0.3": lab.HealthyV03(), "lab union": lab.Union(), "lab seed": lab.Seed(), "lab seed v1": lab.SeedV1(),
	} {
		peers = append(peers, load(name, labtest.Start(t, opts...).BaseURL))
	}
	for _, mode := range []string{modeHonest, modeLegacyCompat, modeSeed, modeGRPCAtHTTP, modeGRPCNoService, modeV03Server} {
		s := startJSServer(t, mode)
		peers = append(peers, load("a2a-js "+s.SDKVersion+" "+mode, s.BaseURL))
	}
	for _, release := range a2aGoReleases(t) {
		bin := buildA2AGoCLI(t, release)
		for _, m := range a2aGoModes {
			protocol := "latest"
			if m.version == card.V03 {
				protocol = "0.3"
			}
			addr := strings.TrimPrefix(startA2AGoEcho(t, bin, "--transport", m.transport, "--protocol", protocol), "http://")
			url := "http://" + addr
			if m.binding == a2a.TransportProtocolGRPC {
				url = addr // a bare host:port, as a2a serve's own card declares it
			}
			// As from a card file: no origin, so a bare gRPC address's TLS mode is not
			// implied by an http:// card URL.
			peers = append(peers, agreementPeer{
				name: fmt.Sprintf("a2a-go %s serve --transport %s --protocol %s", release, m.transport, protocol),
				card: &card.Card{Name: "a2a-cli", Interfaces: []card.Interface{{URL: url, Binding: m.binding, ProtocolVersion: m.version}}},
			})
		}
	}
	return peers
}

// TestSendDeliversWhereProbeFoundServed is issue 18's agreement: on every test peer,
// every interface probe calls served is one send delivers a message to, in one
// attempt: the delegate is given a card declaring that interface alone (read as from a
// card file, so a bare gRPC address gets no TLS hint from the card's URL). It covers
// v0.3 HTTP+JSON under {url}/v1 (a2a-js 0.3.14, 1.3.0 with legacyCompat, a2a-go v2.4.0)
// and at {url} (a2a-go v2.3.1's dialect), and
// plaintext gRPC at a bare loopback host:port (a2a serve --transport grpc, a2a-js).
func TestSendDeliversWhereProbeFoundServed(t *testing.T) {
	t.Parallel()
	peers := agreementPeers(t)
	total := 0
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			results := probe.Card(ctx, p.card, probe.WithTimeout(10*time.Second))
			for i, r := range results {
				if r.Outcome != wire.Served {
					t.Logf("%s: %s (not served, not sent to): %s", r.Interface, r.Outcome, r.Detail)
					continue
				}
				total++
				t.Logf("%s: served (way %+v)", r.Interface, r.Way)
				one := &card.Card{Name: p.card.Name, Version: p.card.Version, Interfaces: []card.Interface{r.Interface}}
				cl, err := delegate.NewFromCard(one, delegate.WithAttemptTimeout(15*time.Second))
				if err != nil {
					t.Errorf("%s: NewFromCard() error = %v", r.Interface, err)
					continue
				}
				text := fmt.Sprintf("agree-%d", i)
				var tr delegate.Trace
				res, err := cl.SendMessage(delegate.WithTrace(ctx, &tr), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))})
				_ = cl.Close()
				answer, _ := json.Marshal(res)
				for _, ci := range probe.Diagnose(one, []probe.Result{r}).Clients {
					if ci.Profile == "a2abind-delegate" && ci.OK != (err == nil) {
						t.Errorf("%s: probe predicts a2abind-delegate ok=%v (%s), send error = %v", r.Interface, ci.OK, ci.Note, err)
					}
				}
				if err != nil || len(tr.Attempts()) != 1 || !strings.Contains(string(answer), text) {
					t.Errorf("%s: probe says served (%s, way %+v), send = %v with %d attempts, answer %s; want the echo in one attempt",
						r.Interface, r.Detail, r.Way, err, len(tr.Attempts()), answer)
				}
			}
		})
	}
	if total < len(peers) {
		t.Errorf("%d served interfaces on %d peers: a peer probed with nothing served is not a check", total, len(peers))
	}
}

// TestSendV03RESTFromTheCLI: the new user's case of issue 18, with the real binary:
// probe calls @a2a-js/sdk 0.3.14's HTTP+JSON 0.3 interface served, and `a2abind send
// --binding HTTP+JSON` delivers there in one attempt (it posted to the route without
// /v1 and failed with not_found).
func TestSendV03RESTFromTheCLI(t *testing.T) {
	t.Parallel()
	s := startJSServer(t, modeV03Server)
	out, code := runA2abind(t, "send", "-o", "json", "--no-cache", "--timeout", "20s", "--binding", "HTTP+JSON", s.BaseURL, "hello v0.3 rest")
	var doc sendOutput
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("send -o json: %v\n%s", err, out)
	}
	if code != 0 || !doc.OK || len(doc.Attempts) != 1 || !regexp.MustCompile(`echo: hello v0.3 rest`).Match(doc.Result) {
		t.Errorf("send = exit %d, ok %v, %d attempts, result %s; want the echo in one attempt\n%s", code, doc.OK, len(doc.Attempts), doc.Result, out)
	}
}
